// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "runner.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int run_serial;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];

	if (!f)
		return strdup("");
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *grown = realloc(buf, len + n + 1);

		if (!grown)
			break;
		buf = grown;
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		return strdup("");
	buf[len] = '\0';
	return buf;
}

static void parse_lines(struct ipcwatch_run *r)
{
	char *save = NULL, *line, *copy = strdup(r->out);
	int cap = 0;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_object *o = json_tokener_parse(line);

		if (!o)
			continue;
		if (r->nevents == cap) {
			cap = cap ? cap * 2 : 64;
			r->events = realloc(r->events, cap * sizeof(*r->events));
		}
		r->events[r->nevents++] = o;
	}
	free(copy);
}

static pid_t spawn_ipcwatch(struct ipcwatch_run *r, const char *const argv[],
			    run_setup_fn setup, void *arg)
{
	pid_t pid;
	int n = run_serial++;

	memset(r, 0, sizeof(*r));
	snprintf(r->out_path, sizeof(r->out_path), "/tmp/ipcwatch.%d.out", n);
	snprintf(r->err_path, sizeof(r->err_path), "/tmp/ipcwatch.%d.err", n);
	pid = fork();
	if (pid == 0) {
		int out = open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int err = open(r->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(out, 1);
		dup2(err, 2);
		if (setup)
			setup(arg);
		execv(IPCWATCH_BIN, (char *const *)argv);
		_exit(127);
	}
	r->pid = pid;
	return pid;
}

static void collect(struct ipcwatch_run *r, int status)
{
	r->status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
					  WEXITSTATUS(status);
	r->out = slurp(r->out_path);
	r->err = slurp(r->err_path);
	parse_lines(r);
	unlink(r->out_path);
	unlink(r->err_path);
}

bool ipcwatch_start(struct ipcwatch_run *r, const char *const argv[],
		    run_setup_fn setup, void *arg)
{
	struct timespec pause = { .tv_nsec = 20000000 };
	int i, status;

	spawn_ipcwatch(r, argv, setup, arg);
	/* loading is slow under TCG; give it a minute */
	for (i = 0; i < 3000; i++) {
		char *err;
		bool ready;

		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			collect(r, status);
			return false;
		}
		err = slurp(r->err_path);
		ready = strstr(err, "watching in") != NULL;
		free(err);
		if (ready)
			return true;
		nanosleep(&pause, NULL);
	}
	kill(r->pid, SIGKILL);
	waitpid(r->pid, &status, 0);
	collect(r, status);
	return false;
}

void ipcwatch_stop_with(struct ipcwatch_run *r, int sig)
{
	int status;

	kill(r->pid, sig);
	waitpid(r->pid, &status, 0);
	collect(r, status);
}

void ipcwatch_stop(struct ipcwatch_run *r)
{
	ipcwatch_stop_with(r, SIGINT);
}

int ipcwatch_exec(struct ipcwatch_run *r, const char *const argv[],
		  run_setup_fn setup, void *arg)
{
	int status;

	spawn_ipcwatch(r, argv, setup, arg);
	waitpid(r->pid, &status, 0);
	collect(r, status);
	return r->status;
}

void ipcwatch_free(struct ipcwatch_run *r)
{
	int i;

	for (i = 0; i < r->nevents; i++)
		json_object_put(r->events[i]);
	free(r->events);
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

long long jint(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return -999999;
	if (json_object_is_type(v, json_type_boolean))
		return json_object_get_boolean(v);
	return json_object_get_int64(v);
}

unsigned long long juint(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return ~0ULL;
	return json_object_get_uint64(v);
}

const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return "";
	return json_object_get_string(v);
}

static bool matches(json_object *o, const char *type, const char *key,
		    long long value)
{
	if (type && strcmp(jstr(o, "type"), type))
		return false;
	return !key || jint(o, key) == value;
}

json_object *find_event(const struct ipcwatch_run *r, const char *type,
			const char *key, long long value, int nth)
{
	int i;

	for (i = 0; i < r->nevents; i++)
		if (matches(r->events[i], type, key, value) && nth-- == 0)
			return r->events[i];
	return NULL;
}

int count_events(const struct ipcwatch_run *r, const char *type,
		 const char *key, long long value)
{
	int i, n = 0;

	for (i = 0; i < r->nevents; i++)
		n += matches(r->events[i], type, key, value);
	return n;
}

bool ipcwatch_wait_record(const struct ipcwatch_run *r, const char *type,
			  const char *key, long long value, int nth,
			  int seconds, const char *check)
{
	struct timespec pause = { .tv_nsec = 50000000 };
	bool found = false;
	int i;

	for (i = 0; i < seconds * 20 && !found; i++) {
		struct ipcwatch_run seen = { 0 };

		seen.out = slurp(r->out_path);
		parse_lines(&seen);
		found = find_event(&seen, type, key, value, nth) != NULL;
		ipcwatch_free(&seen);
		if (!found)
			nanosleep(&pause, NULL);
	}
	if (!tap_ok(found, "%s", check))
		tap_diag("  waited %d s for record %d of type %s%s%s (%lld): "
			 "none came", seconds, nth, type, key ? " with " : "",
			 key ? key : "", value);
	return found;
}

int bpf_prog_count(void)
{
	union bpf_attr attr;
	int n = 0;

	memset(&attr, 0, sizeof(attr));
	while (!syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &attr, sizeof(attr))) {
		n++;
		attr.start_id = attr.next_id;
	}
	return n;
}
