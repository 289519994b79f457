/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel hook the BPF programs attach to, what each one feeds, and
 * whether the running kernel has it. The one place that decides what can
 * be attached: the collector, enforce and `ipcwatch probe` read it.
 *
 * A hook is usable when the kernel's BTF has it with the prototype the
 * program was written for and, for a function, kallsyms has the exact
 * name (a renamed .isra/.constprop copy cannot be traced). An event is
 * available when every hook it needs is; a hook that only refines an
 * event (a "detail") may be missing, and the events say "unexplained" where
 * it would have told.
 */
#ifndef IPCWATCH_HOOKS_H
#define IPCWATCH_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcwatch.h"

struct btf;

enum hook_kind {
	HOOK_TRACEPOINT,	/* tp_btf on an ipc trace event */
	HOOK_FENTRY,
	HOOK_FEXIT,
	HOOK_LSM,		/* BPF LSM: target is the LSM hook */
	HOOK_KPROBE,
	HOOK_KRETPROBE,
};

/* Which program set a hook belongs to. */
enum hook_set {
	HOOKS_TRACEPOINT,	/* the collector, tracepoint mode */
	HOOKS_FENTRY,		/* the collector, fentry mode */
	HOOKS_KPROBE,		/* the collector, kprobe mode */
	HOOKS_COMMON,		/* the collector, either mode */
	HOOKS_POLICY,		/* enforce (bpf/policy.bpf.c) */
};

/* What a detail hook tells; without it the events say less. */
enum hook_detail {
	DETAIL_CREATE_STAGE = 1 << 0,	/* lsm_denied, file_setup, nomem */
	DETAIL_CREATE_HUGETLB = 1 << 1,	/* file_setup of SHM_HUGETLB */
	DETAIL_EXISTING_SMALLER = 1 << 2,
	DETAIL_SHMAT_SIZE = 1 << 3,	/* shmat size and addr_wrap */
	DETAIL_DESTROY_CAUSE = 1 << 4,
	DETAIL_SEM_NSEMS = 1 << 5,	/* sem_create bad_nsems, over_semmsl */
	DETAIL_SEM_STAGE = 1 << 6,	/* sem_create lsm_denied, nomem, no_ids */
	DETAIL_EXISTING_FEWER = 1 << 7,
	DETAIL_SEM_DESTROY_CAUSE = 1 << 8,
	DETAIL_SEM_NSEMS_IPC = 1 << 9,	/* the same, of ipc(2) */
	DETAIL_SEM_NSEMS_IA32 = 1 << 10, /* the same, of 32-bit x86 tasks */
	DETAIL_LAST = DETAIL_SEM_NSEMS_IA32,
};

struct hook {
	const char *prog;	/* BPF program name */
	enum hook_kind kind;
	/* kernel function, trace event or LSM hook; a syscall is named
	 * without its architecture's prefix ("sys_shmctl") */
	const char *target;
	bool syscall;
	int nargs;		/* parameters the program reads (fexit: all) */
	enum hook_set set;
	uint32_t needs;		/* events (1 << type) that need it */
	uint32_t detail;	/* enum hook_detail it provides */
	/* opens a per-task record the mode's other hooks close (a sleep):
	 * attached after them, detached before them */
	bool opens;
};

enum hook_status {
	HOOK_OK,
	HOOK_MISSING,		/* not in the kernel's BTF */
	HOOK_PROTOTYPE,		/* too few parameters, or fexit: not as many */
	HOOK_NO_SYMBOL,		/* in BTF, not in kallsyms */
	HOOK_ATTACH_FAILED,	/* the kernel refused the attach */
	HOOK_NO_CALLER,		/* optional, absent: nothing to attach to */
};

struct hook_state {
	enum hook_status status;
	int nargs;		/* found, for HOOK_PROTOTYPE */
	int err;		/* errno, for HOOK_ATTACH_FAILED */
	char target[64];	/* the name attached to (syscall resolved) */
};

extern const struct hook hooks[];
extern const size_t nhooks;

/* The hook of a BPF program, or NULL. */
const struct hook *hook_by_prog(const char *prog);

/*
 * Check every hook against @btf and, when @kallsyms is not NULL, the
 * symbol list in that file (/proc/kallsyms). @states has nhooks entries.
 */
void hooks_probe(const struct btf *btf, const char *kallsyms,
		 struct hook_state *states);

/*
 * Whether the kernel has the ipc tracepoints of kernel-patches/, every
 * one with the prototype ipcwatch was written for. A kernel with an
 * earlier version of the series (the four patches before sem_create,
 * sem_destroy and sem_undo) has some, not all: it is watched in fentry
 * mode (docs/design-notes.md).
 */
bool hooks_have_tracepoints(const struct hook_state *states);

/* Usable, or optional and not needed here: nothing is lost. */
bool hook_state_fine(const struct hook_state *s);

/* Events the collector's @mode can deliver with these hook states. */
uint32_t hooks_events(enum ipcw_mode mode, const struct hook_state *states);

/* Details available in @mode. */
uint32_t hooks_details(enum ipcw_mode mode, const struct hook_state *states);

/* Whether a hook of the collector is used in @mode. */
bool hook_in_mode(const struct hook *h, enum ipcw_mode mode);

/*
 * Whether a hook is worth attaching in @mode: every event it is needed
 * for is available, or it completes an available detail of one.
 */
bool hook_wanted(const struct hook *h, enum ipcw_mode mode, uint32_t events,
		 uint32_t details);

/* The events @mode never has, whatever the kernel (shm_attach in fentry). */
uint32_t mode_never_events(enum ipcw_mode mode);

const char *hook_status_text(const struct hook_state *s, char *buf,
			     size_t len);	/* "not in the kernel's BTF" */
const char *hook_detail_text(uint32_t detail);	/* what it tells */
const char *hook_kind_name(enum hook_kind kind);	/* "fentry" */

/*
 * Attach order, lowest first; detach in the reverse: what ends a call
 * (fexit, kretprobe, tracepoints) before what begins one, and a hook
 * that opens a record last, so no call is seen begun and not ended.
 */
int hook_attach_rank(const struct hook *h);
#define HOOK_RANK_MAX 2

struct json_writer;

/*
 * What @mode cannot deliver on this kernel, in one line: "shm_attach
 * (needs the ipc tracepoints); shm_create reason existing_smaller
 * (shm_more_checks: not in the kernel's BTF)". False if nothing.
 */
bool hooks_unavailable_line(enum ipcw_mode mode, const struct hook_state *st,
			    char *buf, size_t len);

/* The same as a JSON array of {"what", "hook", "why"}. */
void hooks_unavailable_json(struct json_writer *jw, enum ipcw_mode mode,
			    const struct hook_state *st);

/* All the collector's event types, as a mask. */
#define IPCW_ALL_EVENTS (((1u << IPCW_TYPE_MAX) - 1) & ~1u)

#endif
