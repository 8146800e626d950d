# completions: bash completion for hermes, installed where bash-completion loads it on demand.
# Packagers may override the directory: make install bashcompletiondir=/usr/share/bash-completion/completions
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = completions/hermes
