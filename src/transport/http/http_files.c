/* transport/http/http_files.c: raw transfers (see http_server.h and doc/PROTOCOL.md, "Raw
 * transfers"): GET and HEAD of /files/PATH stream a workspace file from its descriptor (the
 * kernel's sendfile, no copy held), whole or one byte range, with its version as a strong ETag;
 * PUT /files/PATH streams the body into a temporary file beside the target and puts it in place
 * atomically and version-checked, as fs.writeFile does (fs/atomic.h, fs/filelock.h), recorded in
 * .hermes/history. Same wall (fs/workspace.h), same rights (fs.readFile / fs.writeFile under the
 * credential and the server's policy) as the verbs. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/desc.h"
#include "core/executor.h"
#include "fs/atomic.h"
#include "fs/commit.h"
#include "fs/filelock.h"
#include "fs/history.h"
#include "fs/workspace.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "transport/http/http_check.h"
#include "transport/http/http_server.h"

/* A PUT being received. */
struct hermes_http_put {
	hermes_ws_loc_t loc;
	hermes_atomic_t a;
	char *path;
	int error;              /* a write to the temporary file failed (-errno): said at the end */
};

/* A refusal: a short text body naming what was wrong. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *why,
                              const char *const *headers)
{
	hermes_log(HERMES_LOG_INFO, "http: /files: %u: %s", status, why);
	size_t len = strlen(why);
	char *body = malloc(len + 2);
	if (body == NULL)
		return MHD_NO;
	memcpy(body, why, len);
	body[len] = '\n';
	return hermes_http_respond(c, status, "text/plain; charset=utf-8", body, len + 1, headers);
}

/* The status and message for a workspace error rc on path. */
static enum MHD_Result refuse_ws(struct MHD_Connection *c, int rc, const char *action,
                                 const char *path)
{
	char why[512], reason[256], shown[256];
	snprintf(why, sizeof why, "cannot %s '%s': %s", action,
	         hermes_ws_shown(path, shown, sizeof shown),
	         hermes_ws_strerror(rc, reason, sizeof reason));
	unsigned status = rc == -ENOENT || rc == -ENOTDIR ? MHD_HTTP_NOT_FOUND
	                  : rc == HERMES_WS_EOUTSIDE || rc == -EACCES || rc == -EPERM
	                      ? MHD_HTTP_FORBIDDEN
	                  : rc == HERMES_WS_ETOOLONG ? MHD_HTTP_URI_TOO_LONG
	                  : rc == -EISDIR || rc == -EINVAL ? MHD_HTTP_CONFLICT
	                  : rc == HERMES_WS_ECHANGED || rc == HERMES_WS_ELOCKED ? MHD_HTTP_CONFLICT
	                  : rc == -ENOSPC || rc == -EDQUOT ? MHD_HTTP_INSUFFICIENT_STORAGE
	                                                    : MHD_HTTP_INTERNAL_SERVER_ERROR;
	return refuse(c, status, why, NULL);
}

/* May q call verb under its credential and the server's policy? Else the 403 is queued. */
static int check_right(http_server_t *hs, hreq_t *q, struct MHD_Connection *c, const char *verb,
                       const char *what)
{
	char why[256];
	const hermes_verb_desc_t *d = hermes_verb_desc_find(verb);
	if (d == NULL)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "the verb table lacks the verb", NULL);
	if (!hermes_config_allows(hermes_executor_config(hs->sopts.executor), d)) {
		snprintf(why, sizeof why, "this server does not allow %s (%s is refused by its policy: "
		         "--read-only, --allow, --deny)", what, verb);
		return refuse(c, MHD_HTTP_FORBIDDEN, why, NULL);
	}
	/* an OAuth token lacking the scope: 403 insufficient_scope, as for a tool call */
	int r = hermes_http_check_scope(hs, q, c, verb);
	if (r >= 0)
		return r;
	if (!hermes_rights_allow(q->rights, d)) {
		snprintf(why, sizeof why, "the credential may not %s (it may not call %s%s)", what, verb,
		         q->rights->read_only ? ": it is read-only" : "");
		return refuse(c, MHD_HTTP_FORBIDDEN, why, NULL);
	}
	return -1;
}

/* ---- GET, HEAD -------------------------------------------------------------------------------- */

static enum MHD_Result serve_get(hreq_t *q, struct MHD_Connection *c, const char *path)
{
	const hermes_ws_t *ws = hermes_executor_host(q->hs->sopts.executor);
	int fd = -1;
	int rc = hermes_ws_open_path(ws, path, O_RDONLY | O_NOCTTY | O_NONBLOCK, &fd);
	if (rc)
		return refuse_ws(c, rc, "read", path);
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse_ws(c, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL, "read", path);
	}
	char version[HERMES_FILE_VERSION_MAX], etag[HERMES_FILE_VERSION_MAX + 2];
	hermes_file_version(&st, version);
	snprintf(etag, sizeof etag, "\"%s\"", version);
	const char *inm = hermes_http_header(c, "If-None-Match");
	if (inm && hermes_http_etag_match(inm, etag, true, true)) {
		close(fd);
		const char *h[] = {"ETag", etag, NULL};
		return hermes_http_respond_empty(c, MHD_HTTP_NOT_MODIFIED, h);
	}
	uint64_t size = (uint64_t)st.st_size, off = 0, len = size;
	const char *range = hermes_http_header(c, "Range");
	const char *if_range = hermes_http_header(c, "If-Range");
	int r = 0;
	if (range && (!if_range || strcmp(if_range, etag) == 0))
		r = hermes_http_range_parse(range, size, &off, &len);
	char content_range[96];
	if (r < 0) {
		close(fd);
		snprintf(content_range, sizeof content_range, "bytes */%" PRIu64, size);
		const char *h[] = {"Content-Range", content_range, "ETag", etag, NULL};
		char why[160];
		snprintf(why, sizeof why, "the range '%.60s' is not satisfiable: the file has %" PRIu64
		         " bytes", range, size);
		return refuse(c, MHD_HTTP_RANGE_NOT_SATISFIABLE, why, h);
	}
	struct MHD_Response *resp;
	if (len == 0) {
		close(fd);
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	} else {
		/* libmicrohttpd owns fd from here (closed with the response) and sends it with sendfile */
		resp = MHD_create_response_from_fd_at_offset64(len, fd, off);
		if (resp == NULL)
			close(fd);
	}
	if (resp == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
	MHD_add_response_header(resp, "ETag", etag);
	MHD_add_response_header(resp, "Accept-Ranges", "bytes");
	if (r > 0) {
		snprintf(content_range, sizeof content_range, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64,
		         off, off + len - 1, size);
		MHD_add_response_header(resp, "Content-Range", content_range);
	}
	/* the request has arrived: a large file to a slow reader is bounded by the idle timeout
	 * alone, not by the reaper's time for a request to arrive */
	pthread_mutex_lock(&q->hs->lock);
	if (q->conn)
		q->conn->reading_since.tv_sec = q->conn->reading_since.tv_nsec = 0;
	pthread_mutex_unlock(&q->hs->lock);
	enum MHD_Result ok = MHD_queue_response(c, r > 0 ? MHD_HTTP_PARTIAL_CONTENT : MHD_HTTP_OK,
	                                        resp);
	MHD_destroy_response(resp);
	return ok;
}

/* ---- PUT -------------------------------------------------------------------------------------- */

static void put_free(struct hermes_http_put *p)
{
	if (p == NULL)
		return;
	hermes_atomic_abort(&p->a);
	hermes_ws_loc_close(&p->loc);
	free(p->path);
	free(p);
}

/* The preconditions against the file as it is (st NULL: absent): -1 if they hold, else the 412
 * queued. */
static int preconditions(struct MHD_Connection *c, const struct stat *st, const char *path)
{
	char version[HERMES_FILE_VERSION_MAX] = "", etag[HERMES_FILE_VERSION_MAX + 2] = "";
	char why[512], shown[256];
	if (st) {
		hermes_file_version(st, version);
		snprintf(etag, sizeof etag, "\"%s\"", version);
	}
	const char *im = hermes_http_header(c, "If-Match");
	const char *inm = hermes_http_header(c, "If-None-Match");
	if (im && !hermes_http_etag_match(im, etag, st != NULL, false)) {
		snprintf(why, sizeof why, "'%s' is %s%s, not what If-Match names (%.100s); nothing was "
		         "written", hermes_ws_shown(path, shown, sizeof shown),
		         st ? "at version " : "absent", version, im);
	} else if (inm && hermes_http_etag_match(inm, etag, st != NULL, true)) {
		snprintf(why, sizeof why, "'%s' exists (version %s) and If-None-Match is %.100s; nothing "
		         "was written", hermes_ws_shown(path, shown, sizeof shown), version, inm);
	} else {
		return -1;
	}
	if (st) {
		const char *h[] = {"ETag", etag, NULL};
		return refuse(c, MHD_HTTP_PRECONDITION_FAILED, why, h);
	}
	return refuse(c, MHD_HTTP_PRECONDITION_FAILED, why, NULL);
}

/* The headers of a PUT: the target located and checked, its temporary file begun. */
static int begin_put(hreq_t *q, struct MHD_Connection *c, char *path)
{
	const hermes_ws_t *ws = hermes_executor_host(q->hs->sopts.executor);
	hermes_error_t err;
	if (hermes_commit_recover(ws, &err) != 0) {
		free(path);
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err.message, NULL);
	}
	struct hermes_http_put *p = calloc(1, sizeof *p);
	if (p == NULL) {
		free(path);
		return MHD_NO;
	}
	p->path = path;
	p->a.fd = -1;
	p->loc.dirfd = -1;
	size_t pl = strlen(path);
	int rc = pl > 0 && path[pl - 1] == '/' ? -EISDIR
	         : hermes_ws_locate(ws, path, HERMES_WS_FOLLOW | HERMES_WS_MKDIRS, &p->loc);
	if (rc == 0 && (p->loc.is_root || (p->loc.exists && S_ISDIR(p->loc.st.st_mode))))
		rc = -EISDIR;
	else if (rc == 0 && p->loc.exists && !S_ISREG(p->loc.st.st_mode))
		rc = -EINVAL;
	if (rc) {
		int r = refuse_ws(c, rc, "write", path);
		put_free(p);
		return r;
	}
	int r = preconditions(c, p->loc.exists ? &p->loc.st : NULL, path);
	if (r < 0 && (rc = hermes_atomic_begin(&p->a, p->loc.dirfd, p->loc.name,
	                                       p->loc.exists ? &p->loc.st : NULL)) != 0)
		r = refuse_ws(c, rc, "write", path);
	if (r >= 0) {
		put_free(p);
		return r;
	}
	q->put = p;
	return -1;
}

void hermes_http_files_upload(hreq_t *q, const char *data, size_t len)
{
	struct hermes_http_put *p = q->put;
	if (p->error == 0)
		p->error = hermes_atomic_write(&p->a, data, len);
	/* the body is arriving: not a slow sender holding a connection (the reaper spares it) */
	pthread_mutex_lock(&q->hs->lock);
	if (q->conn)
		hermes_http_now(&q->conn->reading_since);
	pthread_mutex_unlock(&q->hs->lock);
}

enum MHD_Result hermes_http_files_put_end(hreq_t *q, struct MHD_Connection *c)
{
	struct hermes_http_put *p = q->put;
	const hermes_ws_t *ws = hermes_executor_host(q->hs->sopts.executor);
	if (p->error)
		return refuse_ws(c, p->error, "write", p->path);
	struct stat st, now;
	int fd = -1, rc = 0;
	bool exists = p->loc.exists;
	if (exists) {
		rc = hermes_file_lock(p->loc.dirfd, p->loc.name, NULL, &fd, &st);
		if (rc == -ENOENT)
			exists = false; /* removed meanwhile: created anew */
		else if (rc == 0 && !S_ISREG(st.st_mode))
			rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		if (rc && rc != -ENOENT) {
			if (fd >= 0)
				close(fd);
			return refuse_ws(c, rc, "write", p->path);
		}
	}
	/* checked again under the lock: the file may have changed while the body arrived */
	int r = preconditions(c, exists ? &st : NULL, p->path);
	if (r >= 0) {
		if (fd >= 0)
			close(fd);
		return (enum MHD_Result)r;
	}
	hermes_history_t *hist = hermes_history_start(ws, "fs.writeFile");
	int hi = hermes_history_file(hist, p->loc.dirfd, p->loc.name, exists ? &st : NULL);
	p->a.expect = exists ? &st : NULL;
	/* If-None-Match: * creates only: a file that appears meanwhile is not replaced */
	const char *inm = hermes_http_header(c, "If-None-Match");
	bool create_only = !exists && inm && hermes_http_etag_match(inm, "", true, true);
	rc = hermes_atomic_commit(&p->a, !create_only);
	if (rc == 0 && fstatat(p->loc.dirfd, p->loc.name, &now, AT_SYMLINK_NOFOLLOW) != 0)
		rc = -errno;
	hermes_history_after(hist, hi, rc == 0 ? &now : NULL);
	hermes_history_finish(hist, rc == 0);
	if (fd >= 0)
		close(fd);
	if (rc == -EEXIST)
		return refuse(c, MHD_HTTP_PRECONDITION_FAILED, "the file was created meanwhile and "
		              "If-None-Match is *; nothing was written", NULL);
	if (rc)
		return refuse_ws(c, rc, "write", p->path);
	char etag[HERMES_FILE_VERSION_MAX + 2], version[HERMES_FILE_VERSION_MAX];
	hermes_file_version(&now, version);
	snprintf(etag, sizeof etag, "\"%s\"", version);
	const char *h[] = {"ETag", etag, NULL};
	return hermes_http_respond_empty(c, exists ? MHD_HTTP_NO_CONTENT : MHD_HTTP_CREATED, h);
}

void hermes_http_files_done(hreq_t *q)
{
	put_free(q->put);
	q->put = NULL;
}

/* ---- routing ------------------------------------------------------------------------------ */

int hermes_http_files_begin(http_server_t *hs, hreq_t *q, struct MHD_Connection *c,
                            const char *method)
{
	char why[256];
	char *path = NULL;
	if (hermes_http_files_path(q->raw_uri, FILES_PREFIX, &path, why, sizeof why) != 0)
		return refuse(c, MHD_HTTP_BAD_REQUEST, why, NULL);
	bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
	if (!get && strcmp(method, "PUT") != 0) {
		free(path);
		const char *h[] = {"Allow", "GET, HEAD, PUT", NULL};
		snprintf(why, sizeof why, "%.20s is not served on " FILES_PREFIX " (GET, HEAD and PUT "
		         "are)", method);
		return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, why, h);
	}
	int r = get ? check_right(hs, q, c, "fs.readFile", "read files")
	            : check_right(hs, q, c, "fs.writeFile", "write files");
	if (r >= 0) {
		free(path);
		return r;
	}
	if (get) {
		r = serve_get(q, c, path);
		free(path);
		return r;
	}
	return begin_put(q, c, path);
}
