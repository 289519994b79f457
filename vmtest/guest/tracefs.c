// SPDX-License-Identifier: GPL-2.0
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Event names of the ipc system, to pick our lines out of the buffer */
static const char *const ipc_events[] = {
	"shm_create", "shmat", "shm_attach", "shm_detach", "shm_destroy",
	"shm_orphan", "sem_block", "sem_wake", "sem_create", "sem_destroy",
	"sem_undo",
};

static void write_file(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags);

	if (fd < 0 || write(fd, text, strlen(text)) < 0) {
		fprintf(stderr, "tracefs: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	close(fd);
}

void trace_ipc_enable(bool on)
{
	write_file(TRACEFS "/events/ipc/enable", on ? "1" : "0", 0);
	write_file(TRACEFS "/tracing_on", "1", 0);
}

void trace_clear(void)
{
	write_file(TRACEFS "/trace", "", O_TRUNC);
}

static bool is_ipc_event(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ipc_events) / sizeof(ipc_events[0]); i++)
		if (!strcmp(name, ipc_events[i]))
			return true;
	return false;
}

/*
 * "  comm-123  [001] d..1.  12.345678: shm_create: ns=... key=..."
 * The comm may hold '-', so the pid is the number just before " [".
 */
static bool parse_line(char *line, struct trace_event *ev)
{
	char *bracket = strstr(line, " [");
	char *dash, *p, *colon;

	if (line[0] == '#' || !bracket)
		return false;
	*bracket = '\0';
	dash = strrchr(line, '-');
	if (!dash)
		return false;
	ev->pid = atoi(dash + 1);

	/* skip "[cpu]", the flags and the timestamp "secs:" */
	p = strchr(bracket + 1, ']');
	if (!p)
		return false;
	p = strstr(p, ": ");
	if (!p)
		return false;
	p += 2;
	colon = strstr(p, ": ");
	if (!colon || colon - p >= (long)sizeof(ev->name))
		return false;
	memcpy(ev->name, p, colon - p);
	ev->name[colon - p] = '\0';
	snprintf(ev->fields, sizeof(ev->fields), "%s", colon + 2);
	ev->fields[strcspn(ev->fields, "\n")] = '\0';
	return is_ipc_event(ev->name);
}

void trace_read(struct trace_log *log)
{
	char line[1024];
	FILE *f = fopen(TRACEFS "/trace", "r");

	if (!f) {
		perror(TRACEFS "/trace");
		exit(2);
	}
	log->count = 0;
	while (fgets(line, sizeof(line), f)) {
		struct trace_event ev;

		if (!parse_line(line, &ev))
			continue;
		if (log->count == (int)(sizeof(log->ev) / sizeof(log->ev[0])))
			break;
		log->ev[log->count++] = ev;
	}
	fclose(f);
}

int trace_count(const struct trace_log *log, const char *name)
{
	int i, n = 0;

	for (i = 0; i < log->count; i++)
		n += !strcmp(log->ev[i].name, name);
	return n;
}

const struct trace_event *trace_find(const struct trace_log *log,
				     const char *name, int nth)
{
	int i;

	for (i = 0; i < log->count; i++)
		if (!strcmp(log->ev[i].name, name) && nth-- == 0)
			return &log->ev[i];
	return NULL;
}

const char *ev_str(const struct trace_event *ev, const char *key)
{
	static char value[128];
	size_t klen = strlen(key);
	const char *p = ev ? ev->fields : "";

	while (*p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t vlen = strcspn(p + klen + 1, " ");

			if (vlen >= sizeof(value))
				vlen = sizeof(value) - 1;
			memcpy(value, p + klen + 1, vlen);
			value[vlen] = '\0';
			return value;
		}
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	return "";
}

long long ev_num(const struct trace_event *ev, const char *key)
{
	const char *s = ev_str(ev, key);

	return *s ? strtoll(s, NULL, 0) : -999999;
}

unsigned long long ev_unum(const struct trace_event *ev, const char *key)
{
	const char *s = ev_str(ev, key);

	return *s ? strtoull(s, NULL, 0) : ~0ULL;
}
