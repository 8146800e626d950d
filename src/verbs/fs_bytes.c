/* verbs/fs_bytes.c: fs.readBytes, any file or a byte range of it as base64, with the file's MIME
 * type (fs/mimetype.h) and, for an image, its pixel size (fs/imageinfo.h). fs.writeFile's base64
 * content is decoded in fs_write.c. */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base64.h"
#include "fs/filelock.h"
#include "fs/imageinfo.h"
#include "fs/mimetype.h"
#include "fs/workspace.h"
#include "verbs/handlers.h"

/* Reads up to n bytes at off into buf, looking at the cancel token between chunks. The count read
 * (short at the end of a file that shrank), or -errno / HERMES_WS_ECANCELLED. */
static int64_t read_at(const hermes_call_t *call, int fd, uint8_t *buf, size_t n, int64_t off)
{
	size_t got = 0;
	while (got < n) {
		if (hermes_cancel_requested(call->cancel))
			return HERMES_WS_ECANCELLED;
		size_t chunk = n - got < (1u << 22) ? n - got : (1u << 22);
		ssize_t r = pread(fd, buf + got, chunk, off + (off_t)got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		hermes_call_progress(call, (double)got, (double)n, "read %zu of %zu bytes", got, n);
	}
	return (int64_t)got;
}

void hermes_verb_fs_read_bytes(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_read_bytes_args_t *args = args_;
	hermes_fs_read_bytes_result_t *result = result_;
	const int64_t max = call->config->max_read_bytes;
	char shown[256];
	struct stat st;
	uint8_t *head = NULL, *data = NULL;
	int fd = hermes_verbs_open_regular(call, args->path, "read", result, &st);
	if (fd < 0)
		return;
	const int64_t size = st.st_size, off = args->offset;
	int64_t want = off < size ? size - off : 0;
	if (args->has_length && args->length < want)
		want = args->length;
	if (want > max) {
		if (args->has_length)
			hermes_result_fail(result, HERMES_E_TOO_LARGE,
			                   "cannot read %lld bytes of '%s': over the read limit of %lld bytes "
			                   "(ask for at most that many with length)", (long long)want,
			                   hermes_ws_shown(args->path, shown, sizeof shown), (long long)max);
		else
			hermes_result_fail(result, HERMES_E_TOO_LARGE,
			                   "cannot read '%s': the %lld bytes from offset %lld pass the read "
			                   "limit of %lld bytes (read it in ranges with offset and length)",
			                   hermes_ws_shown(args->path, shown, sizeof shown), (long long)want,
			                   (long long)off, (long long)max);
		goto out;
	}
	/* The host may bound the memory results hold: the bytes and their base64. */
	if (!hermes_call_hold_memory(call, (size_t)want + hermes_base64_encoded_len((size_t)want))) {
		hermes_ws_fail(result, HERMES_WS_ECANCELLED, "read", args->path);
		goto out;
	}
	/* The type is judged from the file's start whatever range is read. */
	size_t head_len = size < HERMES_IMAGE_HEAD ? (size_t)size : HERMES_IMAGE_HEAD;
	int64_t got = -ENOMEM;
	if ((head = malloc(head_len ? head_len : 1)))
		got = read_at(call, fd, head, head_len, 0);
	if (got < 0) {
		hermes_ws_fail(result, (int)got, "read", args->path);
		goto out;
	}
	head_len = (size_t)got;
	char mime[HERMES_MIME_MAX];
	hermes_mime_type(head, head_len, mime);
	hermes_image_info_t img;
	if (hermes_image_info(head, head_len, &img) && img.width <= INT32_MAX &&
	    img.height <= INT32_MAX) {
		result->has_width = result->has_height = true;
		result->width = (int32_t)img.width;
		result->height = (int32_t)img.height;
	}
	got = -ENOMEM;
	if ((data = malloc(want ? (size_t)want : 1)))
		got = read_at(call, fd, data, (size_t)want, off);
	if (got < 0) {
		hermes_ws_fail(result, (int)got, "read", args->path);
		goto out;
	}
	if (!(result->content = malloc(hermes_base64_encoded_len((size_t)got) + 1)) ||
	    !(result->mime_type = strdup(mime)) ||
	    !(result->version = hermes_file_version_dup(&st))) {
		hermes_ws_fail(result, -ENOMEM, "read", args->path);
		goto out;
	}
	hermes_base64_encode(data, (size_t)got, result->content);
	result->size = size;
	result->offset = off;
	result->length = got;
	result->eof = off + got >= size || got < want; /* short: the file shrank under the read */
out:
	free(head);
	free(data);
	close(fd);
}
