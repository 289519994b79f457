/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the ipc trace events back from tracefs, as text. */
#ifndef IPCWATCH_TRACEFS_H
#define IPCWATCH_TRACEFS_H

#include <stdbool.h>
#include <sys/types.h>

#define TRACEFS "/sys/kernel/tracing"

struct trace_event {
	pid_t pid;
	char name[32];
	char fields[480];	/* "key=value key=value ..." from TP_printk */
};

struct trace_log {
	int count;
	struct trace_event ev[256];
};

/* Turn the whole ipc system on or off; aborts if tracefs is missing. */
void trace_ipc_enable(bool on);

/* Empty the trace buffer. */
void trace_clear(void);

/* Read the buffer into @log (only ipc events); keeps the buffer. */
void trace_read(struct trace_log *log);

/* How many events called @name are in @log. */
int trace_count(const struct trace_log *log, const char *name);

/* The nth event called @name, or NULL. */
const struct trace_event *trace_find(const struct trace_log *log,
				     const char *name, int nth);

/* Field @key of @ev as text ("" if absent), as a number, as unsigned. */
const char *ev_str(const struct trace_event *ev, const char *key);
long long ev_num(const struct trace_event *ev, const char *key);
unsigned long long ev_unum(const struct trace_event *ev, const char *key);

#endif
