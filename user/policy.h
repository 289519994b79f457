/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy file: quotas, orphan reaping and alerts per owner, parsed
 * with libinih. Every error names file:line and what is wrong.
 *
 *   [policy]
 *   mode = audit                 ; default of every rule: audit | enforce
 *   guard_rmid = deny            ; IPC_RMID of objects in use: off | audit | deny
 *
 *   [rule databases]             ; rules are tried in file order:
 *   uid = 1000                   ; the first that matches wins
 *   max_segment_bytes = 16G
 *   max_total_bytes = 50%        ; % of MemTotal
 *   rmid_forced = yes
 */
#ifndef IPCWATCH_POLICY_H
#define IPCWATCH_POLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcwatch_policy.h"

#define POLICY_MAX_RULES IPCW_MAX_RULES
/* The longest line of a policy file: a cgroup path of PATH_MAX and its key. */
#define POLICY_MAX_LINE (PATH_MAX + 64)
#define POLICY_NAME_LEN 48

enum policy_mode { POLICY_AUDIT, POLICY_ENFORCE };

/*
 * What the IPC_RMID guard does with a removal of a semaphore set or a
 * segment in use by a process neither its creator nor of its owner's
 * or creator's uid (bpf/policy.bpf.c decides which those are).
 */
enum policy_guard { GUARD_OFF, GUARD_AUDIT, GUARD_DENY };

/* What the per-owner totals of a rule are kept per. */
enum policy_scope { SCOPE_UID, SCOPE_GID, SCOPE_CGROUP, SCOPE_IPCNS };

/* The largest size and duration a policy can give. */
#define POLICY_MAX_BYTES ((uint64_t)INT64_MAX)
#define POLICY_MAX_DURATION_S (100ULL * 366 * 86400)

/* A size: bytes, or a share of MemTotal resolved at load. */
struct policy_amount {
	bool set;
	bool percent;
	double share;		/* 0..100 with percent */
	uint64_t bytes;		/* resolved */
};

struct policy_rule {
	char name[POLICY_NAME_LEN];
	int line;		/* of its first key */

	/* match: every key given must hold; none given matches all */
	bool match_uid, match_gid, match_ipcns;
	uint32_t uid, gid, ipcns;
	char cgroup[PATH_MAX];	/* cgroup v2 directory, "" for any */

	enum policy_mode mode;
	enum policy_scope scope;

	struct policy_amount max_segment_bytes;
	struct policy_amount max_total_bytes;
	bool has_max_segments;
	uint64_t max_segments;

	bool rmid_forced;
	uint64_t rmid_grace_s;

	struct policy_amount alert_segment_bytes;
	struct policy_amount alert_owner_bytes;
	struct policy_amount alert_namespace_bytes;
};

struct policy {
	char path[PATH_MAX];
	enum policy_mode mode;
	enum policy_guard guard_rmid;	/* [policy] guard_rmid, every owner */
	struct policy_rule rules[POLICY_MAX_RULES];
	int nrules;
};

/*
 * Load and check @path; MemTotal resolves percentages. On error returns
 * -1 and puts every error, one "file:line: what" per line, in @err.
 */
int policy_load(const char *path, uint64_t mem_total, struct policy *p,
		char *err, size_t errlen);

/*
 * The same from a stream already open (the fuzz target feeds it memory);
 * @path names it in the errors. @f is left open.
 */
int policy_load_file(FILE *f, const char *path, uint64_t mem_total,
		     struct policy *p, char *err, size_t errlen);

/* What each rule will do, in words. */
void policy_describe(const struct policy *p, FILE *out);

/*
 * The first rule matching an owner, or -1. @cgroup_path is the owner's
 * cgroup v2 path below the mount point ("" if unknown: cgroup rules then
 * do not match).
 */
int policy_match(const struct policy *p, uint32_t uid, uint32_t gid,
		 const char *cgroup_path, uint32_t ipcns);

/*
 * A rule's id, what the kernel records per segment: a hash of its name,
 * so it stays the same across reloads that move or change the rule;
 * never IPCW_NO_RULE. policy_load() refuses two names with one id.
 */
uint32_t policy_rule_id(const char *name);

/* The index of the rule with @id in @p, or -1 (none, or gone). */
int policy_rule_by_id(const struct policy *p, uint32_t id);

/*
 * What was decided for one segment when it was created (or seeded):
 * the index of its rule in the policy in force, -1 for none, and the
 * owners it was charged to, by enum ipcw_scope. The reaper and the
 * alerts read it; they never match rules again.
 */
struct seg;
struct seg_record {
	int rule;
	uint64_t owner[IPCW_SCOPES];
};

/* Fill @out for @s: false when there is no record of it. */
typedef bool (*seg_record_fn)(const struct seg *s, struct seg_record *out,
			      void *ctx);

/* Whether some rule enforces (else the policy only audits). */
bool policy_enforces(const struct policy *p);

/*
 * The scopes whose per-owner totals the policy needs (bit 1 << scope):
 * those of the rules with a max_total_bytes or max_segments.
 */
uint32_t policy_total_scopes(const struct policy *p);

const char *policy_mode_name(enum policy_mode mode);
const char *policy_guard_name(enum policy_guard guard);	/* "deny" */
/* The policy key of a kernel decision: "max_total_bytes" */
const char *limit_kind_name(enum ipcw_limit kind);
const char *policy_scope_name(enum policy_scope scope);

#endif
