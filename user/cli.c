// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "event.h"
#include "units.h"

/*
 * argp prints an error line, then "Try `... --help' ...", wrapped over
 * lines; getopt prints its own line straight to stderr. Keep the first
 * line that is not the "Try" advice, drop the rest.
 */
static bool line_done;
static char line[512];
static size_t line_len;

static void flush_line(void)
{
	line[line_len] = '\0';
	if (!strncmp(line, "Try `", 5))
		line_done = true;	/* the advice and its wrapped rest */
	if (!line_done && line_len > 1) {
		fputs(line, stderr);
		line_done = true;
	}
	line_len = 0;
}

static ssize_t first_line_write(void *cookie, const char *buf, size_t size)
{
	size_t n;

	(void)cookie;
	for (n = 0; n < size; n++) {
		if (line_len < sizeof(line) - 2)
			line[line_len++] = buf[n];
		if (buf[n] == '\n')
			flush_line();
	}
	return (ssize_t)size;
}

FILE *cli_error_stream(void)
{
	static FILE *stream;
	cookie_io_functions_t io = { .write = first_line_write };

	line_done = false;
	line_len = 0;
	if (!stream) {
		stream = fopencookie(NULL, "w", io);
		if (!stream)
			return stderr;
		setvbuf(stream, NULL, _IONBF, 0);
	}
	return stream;
}

uint64_t cli_number(struct argp_state *state, const char *what,
		    const char *arg, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!*arg || *arg == '-' || *end || errno || v < min || v > max)
		argp_error(state, "invalid %s '%s' (a number from %llu to %llu)",
			   what, arg, (unsigned long long)min,
			   (unsigned long long)max);
	return v;
}

uint64_t cli_bytes(struct argp_state *state, const char *what,
		   const char *arg)
{
	uint64_t v;

	if (!parse_bytes(arg, &v))
		argp_error(state, "invalid %s '%s' (bytes, e.g. 65536 or 64K)",
			   what, arg);
	return v;
}

double cli_seconds(struct argp_state *state, const char *what,
		   const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (!*arg || *end || !isfinite(v) || v < 0.1 || v > 86400)
		argp_error(state, "invalid %s '%s' (seconds, 0.1 to 86400)",
			   what, arg);
	return v;
}

void cli_mode(struct argp_state *state, const char *arg,
	      enum ipcw_mode *mode)
{
	if (parse_mode(arg, mode))
		argp_error(state,
			   "invalid mode '%s' (tracepoint, fentry, kprobe or auto)", arg);
}

void cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ipcwatch %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint32_t own_ipcns(void)
{
	struct stat st;

	return stat("/proc/self/ns/ipc", &st) ? 0 : (uint32_t)st.st_ino;
}
