/* transport/http/mhd_lib.h: libmicrohttpd, loaded with dlopen the first time `hermes mcp --listen`
 * starts (see core/dl.h): a stdio session never maps it. http.c calls it by its usual names, which
 * the macros below turn into the loaded functions. */
#ifndef HERMES_SERVER_MHD_LIB_H
#define HERMES_SERVER_MHD_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#include "core/dl.h"

#define HERMES_MHD_FUNCTIONS(X)                                                               \
	X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_add_connection)   \
	X(MHD_create_response_from_buffer) X(MHD_create_response_from_callback)               \
	X(MHD_create_response_from_fd_at_offset64)               \
	X(MHD_add_response_header) X(MHD_queue_response) X(MHD_destroy_response)              \
	X(MHD_lookup_connection_value) X(MHD_get_connection_values)                           \
	X(MHD_get_connection_info) X(MHD_set_connection_option) X(MHD_get_version)

typedef struct hermes_mhd_api {
	HERMES_MHD_FUNCTIONS(HERMES_DL_FIELD)
} hermes_mhd_api_t;

extern hermes_mhd_api_t hermes_mhd_lib;

/* Loads libmicrohttpd (once; thread-safe). false, with why in err (of size n), if it cannot be. */
bool hermes_mhd_lib_load(char *err, size_t n);

#ifndef HERMES_MHD_LIB_LOADER
#define MHD_start_daemon hermes_mhd_lib.MHD_start_daemon
#define MHD_stop_daemon hermes_mhd_lib.MHD_stop_daemon
#define MHD_add_connection hermes_mhd_lib.MHD_add_connection
#define MHD_create_response_from_buffer hermes_mhd_lib.MHD_create_response_from_buffer
#define MHD_create_response_from_callback hermes_mhd_lib.MHD_create_response_from_callback
#define MHD_create_response_from_fd_at_offset64 hermes_mhd_lib.MHD_create_response_from_fd_at_offset64
#define MHD_add_response_header hermes_mhd_lib.MHD_add_response_header
#define MHD_queue_response hermes_mhd_lib.MHD_queue_response
#define MHD_destroy_response hermes_mhd_lib.MHD_destroy_response
#define MHD_lookup_connection_value hermes_mhd_lib.MHD_lookup_connection_value
#define MHD_get_connection_values hermes_mhd_lib.MHD_get_connection_values
#define MHD_get_connection_info hermes_mhd_lib.MHD_get_connection_info
#define MHD_set_connection_option hermes_mhd_lib.MHD_set_connection_option
#define MHD_get_version hermes_mhd_lib.MHD_get_version
#endif

#endif
