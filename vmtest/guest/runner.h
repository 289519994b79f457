/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running /tests/ipcwatch from a guest suite and reading back what it
 * printed: NDJSON parsed with json-c.
 */
#ifndef IPCWATCH_RUNNER_H
#define IPCWATCH_RUNNER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <sys/types.h>

#define IPCWATCH_BIN "/tests/ipcwatch"

struct ipcwatch_run {
	pid_t pid;
	char out_path[64];
	char err_path[64];
	int status;		/* exit status once stopped, 128+sig if killed */
	char *out;		/* what it printed, once stopped */
	char *err;
	json_object **events;	/* stdout parsed, one object per line */
	int nevents;
};

/* Before exec in the child: e.g. drop privileges. May be NULL. */
typedef void (*run_setup_fn)(void *arg);

/*
 * Start ipcwatch with @argv (argv[0] is ignored) and wait until it says
 * it is watching; false if it exited or never said so (then *r holds
 * its output and status).
 */
bool ipcwatch_start(struct ipcwatch_run *r, const char *const argv[],
		    run_setup_fn setup, void *arg);

/* SIGINT, wait, read and parse its output. */
void ipcwatch_stop(struct ipcwatch_run *r);
/* The same with another signal (SIGTERM). */
void ipcwatch_stop_with(struct ipcwatch_run *r, int sig);

/* Run to completion; returns the exit status. */
int ipcwatch_exec(struct ipcwatch_run *r, const char *const argv[],
		  run_setup_fn setup, void *arg);

void ipcwatch_free(struct ipcwatch_run *r);

/* The nth event (from 0) of @type whose @key equals @value, or NULL. */
json_object *find_event(const struct ipcwatch_run *r, const char *type,
			const char *key, long long value, int nth);

/* How many events of @type (NULL: all) have @key == @value (key NULL: any). */
int count_events(const struct ipcwatch_run *r, const char *type,
		 const char *key, long long value);

/* Field as a number (-999999 if absent), as text ("" if absent). */
long long jint(json_object *o, const char *key);
unsigned long long juint(json_object *o, const char *key);
const char *jstr(json_object *o, const char *key);

/*
 * A check named @check: wait, up to @seconds, until the running daemon
 * has printed its @nth (from 0) record of @type whose @key equals @value
 * (key NULL: any). @seconds bounds a failure, it is no pacing delay:
 * generous values cost nothing when the record comes. On timeout its
 * diagnostic says what never came.
 */
bool ipcwatch_wait_record(const struct ipcwatch_run *r, const char *type,
			  const char *key, long long value, int nth,
			  int seconds, const char *check);

/* Number of BPF programs loaded in the kernel, to see nothing is left. */
int bpf_prog_count(void);

#endif
