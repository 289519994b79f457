// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch events: every System V shm and semaphore event that matters,
 * live, with refusals explained in words. A view on the collector.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "collector.h"
#include "commands.h"
#include "event.h"
#include "event_format.h"
#include "hooks.h"
#include "json_writer.h"

struct events_args {
	struct collector_opts collect;
	bool json;
	bool timestamps;
	uint64_t max_events;	/* 0: no limit */
	uint64_t duration_s;	/* 0: until interrupted */
};

struct events_run {
	struct events_args *args;
	struct format_opts fmt;
	struct json_writer *jw;
	uint64_t seen;
	uint64_t lost_reported;
};

enum {
	OPT_CGROUP = 0x100,
	OPT_IPCNS,
	OPT_FAILED,
	OPT_JSON,
	OPT_MODE,
	OPT_BUFFER,
};

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "Only events of this process", 0 },
	{ "uid", 'u', "UID", 0, "Only events of tasks with this user id", 0 },
	{ "cgroup", OPT_CGROUP, "PATH", 0,
	  "Only tasks in this cgroup v2 directory or below", 0 },
	{ "ipcns", OPT_IPCNS, "INODE", OPTION_ARG_OPTIONAL,
	  "Only this IPC namespace (no value: ipcwatch's own)", 0 },
	{ "failed", OPT_FAILED, NULL, 0,
	  "Only refusals and errors", 0 },
	{ "timestamp", 'T', NULL, 0, "Print the time of each event", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line (NDJSON)", 0 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "tracepoint, fentry, kprobe or auto (default): which kernel hooks "
	  "to use",
	  0 },
	{ "buffer-size", OPT_BUFFER, "BYTES", 0,
	  "Ring buffer size, a power of 2 (default 1M)", 0 },
	{ "count", 'c', "N", 0, "Exit after N events", 0 },
	{ "duration", 'd', "SECONDS", 0, "Exit after SECONDS", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output on stderr", 0 },
	{ 0 },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct events_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = cli_error_stream();
		break;
	case 'p':
		a->collect.pid = cli_number(state, "PID", arg, 1, INT32_MAX);
		break;
	case 'u':
		a->collect.uid = cli_number(state, "UID", arg, 0,
					    UINT32_MAX - 1);
		a->collect.filter_uid = true;
		break;
	case OPT_CGROUP:
		a->collect.cgroup = arg;
		break;
	case OPT_IPCNS:
		a->collect.ipcns = arg ? cli_number(state, "IPC namespace inode",
						    arg, 1, UINT32_MAX) :
					 own_ipcns();
		break;
	case OPT_FAILED:
		a->collect.failed_only = true;
		break;
	case 'T':
		a->timestamps = true;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_MODE:
		cli_mode(state, arg, &a->collect.mode);
		break;
	case OPT_BUFFER:
		a->collect.buffer_bytes = cli_bytes(state, "buffer size", arg);
		break;
	case 'c':
		a->max_events = cli_number(state, "count", arg, 1, UINT64_MAX);
		break;
	case 'd':
		a->duration_s = cli_number(state, "duration", arg, 1,
					   86400 * 365);
		break;
	case 'v':
		a->collect.verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	options, parse_opt, NULL,
	"Show System V shared memory and semaphore events as they happen:\n"
	"segments created against the limits in force, shmget() and shmat()\n"
	"refusals with the kernel's reason in words, attach, detach,\n"
	"destruction and its cause, orphaned segments, shmctl() calls, and\n"
	"tasks sleeping on semaphores.",
	NULL, NULL, NULL,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_event(const struct ipcw_event *e, void *ctx)
{
	struct events_run *run = ctx;

	if (run->args->max_events && run->seen >= run->args->max_events)
		return 0;
	run->seen++;
	if (run->jw)
		event_print_json(run->jw, e, &run->fmt);
	else
		event_print_text(stdout, e, &run->fmt);
	if (run->args->max_events && run->seen >= run->args->max_events)
		stop = 1;
	return 0;
}

/* Say so as soon as the kernel drops events: never silently. */
static void report_lost(struct events_run *run, uint64_t lost)
{
	if (lost == run->lost_reported)
		return;
	if (run->jw) {
		jw_start_object(run->jw);
		jw_kv_string(run->jw, "type", "lost");
		jw_kv_uint(run->jw, "lost", lost - run->lost_reported);
		jw_kv_uint(run->jw, "lost_total", lost);
		jw_end_object(run->jw);
	} else {
		printf("LOST %llu events: the ring buffer was full "
		       "(--buffer-size)\n",
		       (unsigned long long)(lost - run->lost_reported));
	}
	run->lost_reported = lost;
}

/* Once, at start: what this kernel cannot show, never silently. */
static void report_unavailable(struct events_run *run,
			       const struct collector *c)
{
	char line[1024];

	if (!hooks_unavailable_line(collector_mode(c), collector_hooks(c),
				    line, sizeof(line)))
		return;
	if (run->jw) {
		jw_start_object(run->jw);
		jw_kv_string(run->jw, "type", "unavailable");
		jw_kv_string(run->jw, "mode", mode_name(collector_mode(c)));
		jw_name(run->jw, "unavailable");
		hooks_unavailable_json(run->jw, collector_mode(c),
				       collector_hooks(c));
		jw_end_object(run->jw);
	}
	fprintf(stderr, "ipcwatch events: unavailable on this kernel: %s\n",
		line);
}

int cmd_events(int argc, char **argv)
{
	struct events_args args = { 0 };
	struct events_run run = { .args = &args };
	struct sigaction sa = { .sa_handler = on_signal };
	struct collector *c;
	char err[256];
	time_t deadline = 0;
	int ret = 0;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &args);

	/*
	 * Written a batch at a time, flushed after each read of the ring
	 * buffer: one write(2) per event was what bounded the rate a flood
	 * could be delivered at, and a batch still reaches a reader at once.
	 */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	run.fmt.timestamps = args.timestamps;
	run.fmt.mono_to_real_ns = mono_to_real_ns();
	run.fmt.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (args.json) {
		run.jw = jw_new(stdout);
		if (!run.jw) {
			cli_fail("events", "out of memory");
			return 1;
		}
		jw_set_batched(run.jw, true);
	}

	c = collector_open(&args.collect, on_event, &run, err, sizeof(err));
	if (!c) {
		cli_fail("events", "%s", err);
		jw_destroy(run.jw);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (collector_fell_back(c))
		fprintf(stderr, "ipcwatch events: this kernel cannot attach "
			"BPF trampolines: kprobes instead of fentry\n");
	fprintf(stderr, "ipcwatch events: watching in %s mode, Ctrl-C to stop\n",
		mode_name(collector_mode(c)));
	report_unavailable(&run, c);
	if (!args.json)
		event_print_header(stdout, &run.fmt);
	fflush(stdout);
	if (args.duration_s)
		deadline = time(NULL) + (time_t)args.duration_s;

	while (!stop) {
		ret = collector_poll(c, 100);
		if (ret < 0) {
			cli_fail("events", "reading events: %s", strerror(-ret));
			break;
		}
		ret = 0;
		report_lost(&run, collector_lost(c));
		fflush(stdout);
		if (deadline && time(NULL) >= deadline)
			break;
	}
	collector_stop(c);
	/* what is already in the buffer is not lost either */
	if (!args.max_events || run.seen < args.max_events)
		collector_poll(c, 0);
	report_lost(&run, collector_lost(c));
	fflush(stdout);
	fprintf(stderr, "ipcwatch events: %llu events, %llu lost",
		(unsigned long long)run.seen,
		(unsigned long long)run.lost_reported);
	if (collector_malformed(c))
		fprintf(stderr, ", %llu malformed",
			(unsigned long long)collector_malformed(c));
	fputc('\n', stderr);
	collector_close(c);
	jw_destroy(run.jw);
	return ret ? 1 : 0;
}
