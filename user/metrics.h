/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition of what ipcwatch enforce knows: written to
 * a file by atomic rename (node_exporter's textfile collector) and
 * served on HTTP /metrics by libmicrohttpd.
 */
#ifndef IPCWATCH_METRICS_H
#define IPCWATCH_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Builds one exposition; families are declared once, in order. */
struct metrics_buf {
	char *text;
	size_t len;
	FILE *out;
	char family[96];	/* the family whose samples come now */
};

int metrics_begin(struct metrics_buf *m);
/* Start a family: # HELP and # TYPE (gauge or counter). */
void metrics_family(struct metrics_buf *m, const char *name,
		    const char *type, const char *help);
/*
 * One sample of the current family. @labels is NULL or pairs of
 * name, value strings ending with NULL; values are escaped.
 */
void metrics_sample(struct metrics_buf *m, double value, ...);
/* Ends the buffer: its text stays until metrics_free(). */
int metrics_end(struct metrics_buf *m);

/*
 * The series bound of per-namespace families: the @max namespaces with
 * the most @bytes (ties: the lower index) get series of their own, in
 * @order, the rest are summed into one. Returns how many got their own.
 */
size_t metrics_ns_order(const uint64_t *bytes, size_t n, size_t max,
			size_t *order);
void metrics_free(struct metrics_buf *m);

/*
 * 0 when @path is missing or a regular file; a symbolic link (or
 * anything else) is refused, with one line in @err.
 */
int metrics_file_check(const char *path, char *err, size_t errlen);

/*
 * Write @text to @path through a new temporary file (O_EXCL) and
 * rename(2); refused as metrics_file_check() says.
 */
int metrics_write_file(const char *path, const char *text, char *err,
		       size_t errlen);

/* The HTTP endpoint: serves the last text given to metrics_publish(). */
struct metrics_server;

/*
 * "ADDR:PORT" or ":PORT" (loopback); NULL with @err on failure.
 */
struct metrics_server *metrics_listen(const char *spec, char *err,
				      size_t errlen);
void metrics_publish(struct metrics_server *s, const char *text);
/* The port bound, useful with port 0. */
unsigned int metrics_port(const struct metrics_server *s);
void metrics_stop(struct metrics_server *s);

/* Split "ADDR:PORT": 0 or -1 (exposed for tests). */
int metrics_parse_listen(const char *spec, char *addr, size_t addrlen,
			 unsigned int *port);

#endif
