/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector: loads the BPF programs for the mode this kernel
 * supports, attaches them and delivers decoded events. Every subcommand
 * that watches the kernel goes through it.
 */
#ifndef IPCWATCH_COLLECTOR_H
#define IPCWATCH_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"
#include "ipcwatch.h"

struct collector_opts {
	enum ipcw_mode mode;
	pid_t pid;		/* 0: any */
	bool filter_uid;
	uid_t uid;
	const char *cgroup;	/* cgroup v2 path, NULL: any */
	uint32_t ipcns;		/* 0: any */
	bool failed_only;
	size_t buffer_bytes;	/* ring buffer size, 0: default */
	bool verbose;		/* libbpf debug output */
};

typedef int (*collector_event_fn)(const struct ipcw_event *e, void *ctx);

struct collector;

/* NULL on failure, with a one-line reason in @err; nothing left loaded. */
struct collector *collector_open(const struct collector_opts *opts,
				 collector_event_fn fn, void *ctx,
				 char *err, size_t errlen);

/* Wait up to @timeout_ms for events: count handled, or -errno. */
int collector_poll(struct collector *c, int timeout_ms);

/* Events the ring buffer could not take so far. */
uint64_t collector_lost(struct collector *c);

/* A descriptor that polls readable when events are queued. */
int collector_fd(struct collector *c);

/* Malformed records skipped by the decoder so far. */
uint64_t collector_malformed(struct collector *c);

enum ipcw_mode collector_mode(const struct collector *c);

/* Whether auto mode fell back to kprobes: the kernel has no trampolines. */
bool collector_fell_back(const struct collector *c);

/* The events delivered (1 << enum ipcw_type), and why others are not. */
uint32_t collector_events(const struct collector *c);
struct hook_state;
const struct hook_state *collector_hooks(const struct collector *c);

/*
 * Whether this kernel attaches BPF trampolines (fentry, fexit, LSM): a
 * fentry program on a hook of @st is loaded, attached and detached. 1
 * yes, 0 no (ENOTSUPP), or -errno when it cannot tell.
 */
int collector_probe_trampolines(const struct hook_state *st, bool verbose);

/* A per-CPU array entry summed over every CPU. */
uint64_t percpu_map_sum(int map_fd, uint32_t key);

/*
 * Detach every program and let what they hold be decided: what is then
 * in the ring buffer is all there will be; what stays held is lost.
 */
void collector_stop(struct collector *c);
void collector_close(struct collector *c);

#endif
