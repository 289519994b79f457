// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int metrics_begin(struct metrics_buf *m)
{
	memset(m, 0, sizeof(*m));
	m->out = open_memstream(&m->text, &m->len);
	return m->out ? 0 : -ENOMEM;
}

void metrics_family(struct metrics_buf *m, const char *name,
		    const char *type, const char *help)
{
	snprintf(m->family, sizeof(m->family), "%s", name);
	fprintf(m->out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
		type);
}

/* Label values: backslash, double quote and newline are escaped. */
static void label_value(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n') {
			fputs("\\n", out);
			continue;
		}
		fputc(*v, out);
	}
}

void metrics_sample(struct metrics_buf *m, double value, ...)
{
	const char *name, *v;
	bool first = true;
	va_list ap;

	fputs(m->family, m->out);
	va_start(ap, value);
	while ((name = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		fprintf(m->out, "%s%s=\"", first ? "{" : ",", name);
		label_value(m->out, v ? v : "");
		fputc('"', m->out);
		first = false;
	}
	va_end(ap);
	if (!first)
		fputc('}', m->out);
	/* integers print exactly up to 2^53; that covers every count */
	if (value == (double)(int64_t)value)
		fprintf(m->out, " %lld\n", (long long)value);
	else
		fprintf(m->out, " %.17g\n", value);
}

int metrics_end(struct metrics_buf *m)
{
	if (!m->out)
		return -EINVAL;
	fclose(m->out);
	m->out = NULL;
	return m->text ? 0 : -ENOMEM;
}

void metrics_free(struct metrics_buf *m)
{
	if (m->out)
		fclose(m->out);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

int metrics_file_check(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;	/* the first write makes it */
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	/* rename() would replace the link, and a link may be a trap */
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s: a symbolic link, not replaced", path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	return 0;
}

int metrics_write_file(const char *path, const char *text, char *err,
		       size_t errlen)
{
	char tmp[4096];
	size_t len = strlen(text), done = 0;
	int fd, e;

	e = metrics_file_check(path, err, errlen);
	if (e)
		return e;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0) {
			e = errno;
			goto fail;
		}
		done += (size_t)n;
	}
	/* readers see the old file or the whole new one, never half */
	if (fchmod(fd, 0644) || fsync(fd)) {
		e = errno;
		goto fail;
	}
	close(fd);
	if (rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	return 0;
fail:
	close(fd);
	unlink(tmp);
	snprintf(err, errlen, "%s: %s", path, strerror(e));
	return -e;
}

struct metrics_server {
	struct MHD_Daemon *daemon;
	pthread_mutex_t lock;
	char *text;
	unsigned int port;
};

int metrics_parse_listen(const char *spec, char *addr, size_t addrlen,
			 unsigned int *port)
{
	const char *colon = strrchr(spec, ':');
	unsigned long p;
	char *end;

	if (!colon || !colon[1])
		return -1;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || p > 65535)
		return -1;
	if (colon == spec)
		snprintf(addr, addrlen, "127.0.0.1");	/* loopback by default */
	else if ((size_t)(colon - spec) < addrlen)
		snprintf(addr, addrlen, "%.*s", (int)(colon - spec), spec);
	else
		return -1;
	*port = (unsigned int)p;
	return 0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct metrics_server *s = cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	unsigned int status = MHD_HTTP_OK;
	char *body;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		body = strdup("only GET\n");
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (strcmp(url, "/metrics")) {
		body = strdup("ipcwatch: metrics are at /metrics\n");
		status = MHD_HTTP_NOT_FOUND;
	} else {
		pthread_mutex_lock(&s->lock);
		body = strdup(s->text ? s->text : "");
		pthread_mutex_unlock(&s->lock);
	}
	if (!body)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(strlen(body), body,
					       MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type",
				"text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

struct metrics_server *metrics_listen(const char *spec, char *err,
				      size_t errlen)
{
	struct metrics_server *s;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;
	char addr[64];
	unsigned int port;

	if (metrics_parse_listen(spec, addr, sizeof(addr), &port) ||
	    inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		snprintf(err, errlen,
			 "--metrics-listen '%s': expected ADDR:PORT or :PORT "
			 "(IPv4)", spec);
		return NULL;
	}
	sin.sin_port = htons((uint16_t)port);
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				     MHD_USE_ERROR_LOG, (uint16_t)port, NULL,
				     NULL, answer, s, MHD_OPTION_SOCK_ADDR, &sin,
				     MHD_OPTION_CONNECTION_LIMIT, 16,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10,
				     MHD_OPTION_END);
	if (!s->daemon) {
		snprintf(err, errlen, "--metrics-listen %s: cannot listen "
			 "(address in use or not local?)", spec);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : port;
	return s;
}

void metrics_publish(struct metrics_server *s, const char *text)
{
	char *copy = strdup(text);

	if (!copy)
		return;
	pthread_mutex_lock(&s->lock);
	free(s->text);
	s->text = copy;
	pthread_mutex_unlock(&s->lock);
}

unsigned int metrics_port(const struct metrics_server *s)
{
	return s->port;
}

void metrics_stop(struct metrics_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	pthread_mutex_destroy(&s->lock);
	free(s->text);
	free(s);
}

static const uint64_t *order_bytes;

static int by_bytes(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (order_bytes[x] != order_bytes[y])
		return order_bytes[x] < order_bytes[y] ? 1 : -1;
	return (x > y) - (x < y);
}

size_t metrics_ns_order(const uint64_t *bytes, size_t n, size_t max,
			size_t *order)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	order_bytes = bytes;
	if (n)
		qsort(order, n, sizeof(*order), by_bytes);
	return n < max ? n : max;
}
