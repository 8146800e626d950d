/* cli/commands.h: the hermes subcommands. Each takes the arguments after its name (argv[0] is
 * the command name) and returns the process exit status. */
#ifndef HERMES_CLI_COMMANDS_H
#define HERMES_CLI_COMMANDS_H

int hermes_cmd_exec(int argc, char **argv);
int hermes_cmd_schema(int argc, char **argv);
int hermes_cmd_verbs(int argc, char **argv);
int hermes_cmd_serve(int argc, char **argv);
int hermes_cmd_mcp(int argc, char **argv);

/* Exit statuses (also documented in hermes(1)). */
#define HERMES_EXIT_OK 0          /* every verb succeeded */
#define HERMES_EXIT_FAILED 1      /* some verb failed */
#define HERMES_EXIT_USAGE 2       /* bad usage, or an envelope that could not be decoded */

#endif
