/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where ipcwatch enforce reports what it decided and saw: syslog,
 * standard output (text or NDJSON) and, with --alert-exec, a program
 * started without a shell with the record as JSON on its stdin.
 */
#ifndef IPCWATCH_NOTIFY_H
#define IPCWATCH_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "ipcwatch_policy.h"
#include "policy.h"
#include "state.h"

#define NOTIFY_MAX_CHILDREN 8
#define NOTIFY_EXEC_TIMEOUT_S 10

/* A running --alert-exec program: the leader of its own group. */
struct alert_child {
	int pid;
	uint64_t started_ns;
	bool killed;
};

struct notifier {
	bool json;
	bool syslog;
	const char *alert_exec;	/* absolute path, or NULL */
	unsigned int exec_timeout_s;
	int children;		/* --alert-exec programs still running */
	struct alert_child child[NOTIFY_MAX_CHILDREN];
	uint64_t exec_started;
	uint64_t exec_skipped;	/* not started: too many running, untrusted */
	uint64_t exec_timeouts;	/* killed after exec_timeout_s */
	bool exec_untrusted;	/* said so once; cleared when trusted again */
	int64_t mono_to_real_ns;
	int max_fd;		/* RLIMIT_NOFILE: the fds a child closes */
};

/* @exec_timeout_s: how long an --alert-exec program may run. */
void notify_init(struct notifier *n, bool json, const char *alert_exec,
		 unsigned int exec_timeout_s);

/* A shmget() that broke a rule, refused or audited. */
void notify_decision(struct notifier *n, const struct ipcw_decision *d,
		     const struct policy *p);

/*
 * An IPC_RMID of an object in use, refused or audited by the guard;
 * @cgroup_path is the remover's cgroup directory when it could still be
 * read ("" when not).
 */
void notify_rmid(struct notifier *n, const struct ipcw_rmid_decision *d,
		 const char *cgroup_path);

/* "sem" or "shm" */
const char *rmid_object_name(uint32_t object);

/* An orphaned segment removed by the reaper. */
void notify_reaped(struct notifier *n, uint32_t ipcns, const struct seg *s,
		   const struct policy_rule *r);

struct gone_ns;

/* An IPC namespace gone while watched, and what its teardown freed. */
void notify_ns_gone(struct notifier *n, const struct gone_ns *g);

enum alert_kind { ALERT_SEGMENT, ALERT_OWNER, ALERT_NAMESPACE };

/*
 * A threshold crossed: @id is the segment for ALERT_SEGMENT, else -1;
 * @owner in @scope (the creator's uid of a segment, the rule's scope
 * for an owner, the namespace).
 */
void notify_alert(struct notifier *n, enum alert_kind kind,
		  const struct policy_rule *r, uint32_t ipcns,
		  enum policy_scope scope, uint64_t owner, int id,
		  uint64_t bytes, uint64_t threshold);

/* A line about ipcwatch itself: started, reloaded, a broken policy. */
void notify_message(struct notifier *n, int priority, const char *type,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The daemon is enforcing: "adopted" says whether from pins. */
void notify_started(struct notifier *n, bool adopted, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Reap finished --alert-exec programs; kill the process group of any
 * that has run past its timeout (@now_ns, CLOCK_MONOTONIC).
 */
void notify_reap_children(struct notifier *n, uint64_t now_ns);

const char *alert_kind_name(enum alert_kind kind);

#endif
