// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch probe, and ipcwatch on kernels that lack what it hooks. Which
 * checks run depends on the kernel (ipcwatch.kernel=):
 *  - main: the patched kernel has everything, enforce included;
 *  - stock: Debian's own kernel, no ipc tracepoints: auto picks fentry;
 *  - preseed: the pre-seed kernel, whose test-only series renames
 *    shm_more_checks() and gives shm_destroy_orphaned() one more
 *    parameter, booted without the BPF LSM: events names what it cannot
 *    show and shows the rest, enforce refuses to start, with and without
 *    securityfs telling it why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ipcutil.h"
#include "runner.h"
#include "tap.h"

const char *tap_suite = "ipcwatch_probe";

static int baseline_progs;

/* `ipcwatch probe ARGS --json`: its exit status and its document. */
static json_object *probe(int *status, const char *a1, const char *a2)
{
	const char *argv[] = { "ipcwatch", "probe", "--json", a1, a2, NULL };
	struct ipcwatch_run r;
	json_object *doc = NULL;

	*status = ipcwatch_exec(&r, argv, NULL, NULL);
	if (r.nevents == 1)
		doc = json_object_get(r.events[0]);
	else
		tap_diag("  probe printed %d documents; stderr: %s", r.nevents,
			 r.err);
	ipcwatch_free(&r);
	return doc;
}

static json_object *member(json_object *o, const char *path)
{
	char copy[128], *tok, *save = NULL;
	json_object *v = o;

	snprintf(copy, sizeof(copy), "%s", path);
	for (tok = strtok_r(copy, ".", &save); tok && v;
	     tok = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(v, tok, &v))
			return NULL;
	return v;
}

/* The status of a hook, by target and kind ("" if not listed). */
static const char *hook_status(json_object *doc, const char *target,
			       const char *kind)
{
	json_object *list = member(doc, "hooks"), *h;
	size_t i;

	for (i = 0; list && i < json_object_array_length(list); i++) {
		h = json_object_array_get_idx(list, i);
		if (!strcmp(jstr(h, "target"), target) &&
		    !strcmp(jstr(h, "kind"), kind))
			return jstr(h, "status");
	}
	return "";
}

/* Hooks used by @used_by that are (ok) or are not (!ok) usable. */
static int count_hooks(json_object *doc, const char *used_by, bool ok)
{
	json_object *list = member(doc, "hooks"), *h;
	size_t i;
	int n = 0;

	for (i = 0; list && i < json_object_array_length(list); i++) {
		h = json_object_array_get_idx(list, i);
		if (!strcmp(jstr(h, "used_by"), used_by) &&
		    jint(h, "ok") == ok)
			n++;
	}
	return n;
}

/* The hooks of tracepoint mode that are ipc trace events, not fexits. */
static int count_events_hooks(json_object *doc, bool ok)
{
	json_object *list = member(doc, "hooks"), *h;
	size_t i;
	int n = 0;

	for (i = 0; list && i < json_object_array_length(list); i++) {
		h = json_object_array_get_idx(list, i);
		if (!strcmp(jstr(h, "used_by"), "tracepoint") &&
		    !strcmp(jstr(h, "kind"), "tracepoint") &&
		    jint(h, "ok") == ok)
			n++;
	}
	return n;
}

/* Whether an "unavailable" list names @what, with @hook if not NULL. */
static bool lists(json_object *list, const char *what, const char *hook)
{
	json_object *item;
	size_t i;

	for (i = 0; list && i < json_object_array_length(list); i++) {
		item = json_object_array_get_idx(list, i);
		if (!strcmp(jstr(item, "what"), what) &&
		    (!hook || !strcmp(jstr(item, "hook"), hook)))
			return true;
	}
	return false;
}

static size_t length(json_object *list)
{
	return list ? json_object_array_length(list) : 0;
}

static void test_main_kernel(void)
{
	json_object *doc;
	int status;

	doc = probe(&status, NULL, NULL);
	tap_is(status, 0, "main.exit_status");
	tap_is(jint(doc, "btf"), 1, "main.btf");
	tap_is(jint(doc, "tracepoints"), 1, "main.tracepoints");
	tap_ok(!strcmp(jstr(doc, "auto"), "tracepoint"), "main.auto_picks");
	/* 11 events, and the fexit that gives shmctl() in that mode */
	tap_is(count_events_hooks(doc, true), 11, "main.every_tracepoint_ok");
	tap_is(count_hooks(doc, "tracepoint", true), 12,
	       "main.every_tracepoint_mode_hook_ok");
	tap_is(count_hooks(doc, "tracepoint", false) +
	       count_hooks(doc, "fentry", false) +
	       count_hooks(doc, "enforce", false), 0, "main.no_hook_missing");
	tap_is(jint(member(doc, "modes.tracepoint"), "complete"), 1,
	       "main.tracepoint_mode_complete");
	tap_is(length(member(doc, "modes.tracepoint.unavailable")), 0,
	       "main.tracepoint_mode_lacks_nothing");
	tap_ok(!strcmp(hook_status(doc, "__x64_sys_shmctl", "fexit"), "ok"),
	       "main.syscall_hook_resolved");
	tap_is(jint(doc, "trampolines"), 1, "main.trampolines");
	json_object_put(doc);

	doc = probe(&status, "--mode=fentry", NULL);
	tap_is(status, 0, "main.fentry.exit_status");
	tap_ok(lists(member(doc, "modes.fentry.unavailable"), "shm_attach",
		     NULL), "main.fentry.names_attach_counts");
	tap_ok(lists(member(doc, "modes.fentry.unavailable"), "shm_orphan",
		     NULL), "main.fentry.names_orphans");
	tap_ok(lists(member(doc, "modes.fentry.unavailable"), "sem_undo",
		     NULL), "main.fentry.names_sem_undo");
	tap_is(length(member(doc, "modes.fentry.unavailable")), 4,
	       "main.fentry.lacks_nothing_else");
	json_object_put(doc);

	doc = probe(&status, "--mode=kprobe", NULL);
	tap_is(status, 0, "main.kprobe.exit_status");
	tap_is(jint(member(doc, "modes.kprobe"), "complete"), 1,
	       "main.kprobe.complete");
	json_object_put(doc);

	doc = probe(&status, "--enforce", NULL);
	tap_is(status, 0, "main.enforce.exit_status");
	tap_is(jint(member(doc, "enforce"), "ready"), 1, "main.enforce.ready");
	tap_ok(!strcmp(jstr(doc, "bpf_lsm"), "listed"), "main.enforce.lsm");
	json_object_put(doc);
	tap_is(bpf_prog_count(), baseline_progs, "main.nothing_left_loaded");
}

/*
 * Debian's own kernel: no ipc tracepoints. On x86_64 auto picks fentry
 * and enforce works; Debian 12's arm64 kernel cannot attach BPF
 * trampolines (no ftrace direct calls there): auto picks kprobes, and
 * enforce, which needs the BPF LSM and so trampolines, is refused.
 */
static void test_stock_kernel(void)
{
	struct utsname uts;
	json_object *doc, *un;
	bool arm64;
	int status;

	uname(&uts);
	arm64 = !strcmp(uts.machine, "aarch64");
	doc = probe(&status, NULL, NULL);
	tap_is(status, 0, "stock.exit_status");
	tap_is(jint(doc, "btf"), 1, "stock.btf");
	tap_is(jint(doc, "tracepoints"), 0, "stock.no_tracepoints");
	tap_is(jint(doc, "trampolines"), !arm64, "stock.trampolines");
	tap_ok(!strcmp(jstr(doc, "auto"), arm64 ? "kprobe" : "fentry"),
	       "stock.auto_picks_%s", arm64 ? "kprobe" : "fentry");
	tap_is(count_hooks(doc, "kprobe", false), 0, "stock.every_kprobe_ok");
	tap_is(count_events_hooks(doc, true), 0, "stock.no_tracepoint_hook");
	tap_ok(!strcmp(hook_status(doc, "shm_create", "tracepoint"),
		       "not in the kernel's BTF"), "stock.tracepoint_status");
	tap_is(count_hooks(doc, "fentry", false), 0, "stock.every_fentry_ok");
	tap_is(count_hooks(doc, "enforce", false), 0, "stock.every_policy_ok");
	un = member(doc, "modes.fentry.unavailable");
	tap_ok(length(un) == 4 && lists(un, "shm_attach", NULL) &&
	       lists(un, "shm_detach", NULL) && lists(un, "shm_orphan", NULL) &&
	       lists(un, "sem_undo", NULL),
	       "stock.fentry_lacks_attach_orphan_and_sem_undo_only");
	json_object_put(doc);

	doc = probe(&status, "--mode=tracepoint", NULL);
	tap_is(status, 1, "stock.tracepoint.exit_status");
	tap_is(jint(doc, "ready"), 0, "stock.tracepoint.not_ready");
	json_object_put(doc);

	doc = probe(&status, "--enforce", NULL);
	tap_is(status, arm64, "stock.enforce.exit_status");
	tap_is(jint(member(doc, "enforce"), "ready"), !arm64,
	       "stock.enforce.ready");
	if (arm64)
		tap_ok(strstr(jstr(member(doc, "enforce"), "why"),
			      "cannot attach BPF trampolines") != NULL,
		       "stock.enforce.says_why");
	json_object_put(doc);
	tap_is(bpf_prog_count(), baseline_progs, "stock.nothing_left_loaded");
}

/* ---- the pre-seed kernel: two hooks differ, the BPF LSM is off ----------- */

static int segments_in_proc(void)
{
	FILE *f = fopen("/proc/sysvipc/shm", "r");
	char line[512];
	int n = -1;		/* the header */

	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static void test_degraded_probe(void)
{
	json_object *doc, *un;
	int status;

	doc = probe(&status, NULL, NULL);
	tap_is(status, 1, "degraded.exit_status");
	tap_ok(!strcmp(jstr(doc, "auto"), "fentry"), "degraded.auto_picks");
	tap_ok(!strcmp(hook_status(doc, "shm_more_checks", "fexit"),
		       "not in the kernel's BTF"), "degraded.missing_function");
	/* fexit reads the return value after every parameter: one more
	 * parameter moves it; fentry reads the first one and is fine */
	if (!tap_ok(!strcmp(hook_status(doc, "shm_destroy_orphaned", "fexit"),
			    "another prototype (2 parameters)"),
		    "degraded.other_prototype"))
		tap_diag("  status: %s",
			 hook_status(doc, "shm_destroy_orphaned", "fexit"));
	tap_ok(!strcmp(hook_status(doc, "shm_destroy_orphaned", "fentry"),
		       "ok"), "degraded.extra_parameter_harmless_to_fentry");
	tap_is(count_hooks(doc, "fentry", false), 2,
	       "degraded.only_those_hooks_missing");
	tap_is(jint(member(doc, "modes.fentry"), "usable"), 1,
	       "degraded.fentry_still_usable");
	un = member(doc, "modes.fentry.unavailable");
	tap_ok(lists(un, "shm_create reason existing_smaller",
		     "shm_more_checks"), "degraded.names_existing_smaller");
	tap_ok(lists(un, "shm_destroy cause", "shm_destroy_orphaned"),
	       "degraded.names_destroy_cause");
	tap_is(length(un), 6, "degraded.names_nothing_else");
	tap_ok(!strcmp(jstr(doc, "bpf_lsm"), "inactive"),
	       "degraded.lsm_inactive");
	json_object_put(doc);

	doc = probe(&status, "--enforce", NULL);
	tap_is(status, 1, "degraded.enforce.exit_status");
	tap_ok(strstr(jstr(member(doc, "enforce"), "why"), "lsm=") != NULL,
	       "degraded.enforce.names_lsm");
	json_object_put(doc);
}

/* Events on the degraded kernel: what it has is reported exactly. */
static void test_degraded_events(void)
{
	const char *argv[] = { "ipcwatch", "events", "--json", NULL };
	struct sembuf down = { 0, -1, 0 }, up = { 0, 1, 0 };
	union semun arg = { .val = 0 };
	struct ipcwatch_run r;
	json_object *ev;
	int id, id2, semid, err;
	pid_t sleeper;
	void *at;

	fresh_ipc_ns();
	if (!tap_ok(ipcwatch_start(&r, argv, NULL, NULL),
		    "degraded.events.starts")) {
		tap_diag("  exit %d: %s", r.status, r.err);
		ipcwatch_free(&r);
		return;
	}
	id = shmget(0x4242, 8192, IPC_CREAT | 0600);
	id2 = shmget(0x4242, 16384, 0600);
	err = errno;
	at = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	shmdt(at);
	semid = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	semctl(semid, 0, SETVAL, arg);
	sleeper = spawn_semop(semid, &down, 1, -1);
	tap_ok(wait_in_semop(sleeper), "degraded.events.sleeper_sleeps");
	semop(semid, &up, 1);
	tap_is(reap(sleeper), 0, "degraded.events.sleeper_woken");
	semctl(semid, 0, IPC_RMID);
	ipcwatch_stop(&r);

	tap_ok(strstr(r.err, "watching in fentry mode") != NULL,
	       "degraded.events.auto_picks_fentry");
	tap_ok(strstr(r.err, "unavailable on this kernel:") &&
	       strstr(r.err, "shm_more_checks: not in the kernel's BTF") &&
	       strstr(r.err, "shm_destroy_orphaned: another prototype"),
	       "degraded.events.says_what_is_missing");
	ev = find_event(&r, "unavailable", NULL, 0, 0);
	tap_ok(ev && lists(member(ev, "unavailable"),
			   "shm_create reason existing_smaller",
			   "shm_more_checks"),
	       "degraded.events.unavailable_record");
	tap_ok(id2 < 0 && err == EINVAL, "degraded.events.existing_smaller_"
	       "refused");
	tap_is(count_events(&r, "shm_create", "key", 0x4242), 1,
	       "degraded.events.no_guess_for_existing_smaller");
	ev = find_event(&r, "shm_create", "key", 0x4242, 0);
	tap_is(jint(ev, "id"), id, "degraded.events.create_reported");
	ev = find_event(&r, "shmat", "id", id, 0);
	tap_is(jint(ev, "size"), 8192, "degraded.events.shmat_size");
	tap_is(count_events(&r, "shmctl", "id", id), 1,
	       "degraded.events.shmctl_reported");
	ev = find_event(&r, "shm_destroy", "id", id, 0);
	tap_ok(ev && !strcmp(jstr(ev, "cause"), "unexplained"),
	       "degraded.events.destroy_cause_unexplained_not_guessed");
	tap_is(count_events(&r, "sem_block", "pid", sleeper), 1,
	       "degraded.events.sem_block");
	tap_is(count_events(&r, "sem_wake", "pid", sleeper), 1,
	       "degraded.events.sem_wake");
	tap_is(r.status, 0, "degraded.events.exits_cleanly");
	ipcwatch_free(&r);
	tap_is(bpf_prog_count(), baseline_progs,
	       "degraded.events.nothing_left_loaded");
}

/* In a private mount namespace, securityfs is gone: no LSM list. */
static void without_securityfs(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    umount2("/sys/kernel/security", MNT_DETACH))
		_exit(126);
}

static void test_degraded_enforce(void)
{
	const char *argv[] = { "ipcwatch", "enforce", "-c", "/etc/ipcwatch-probe.ini",
			       NULL };
	struct ipcwatch_run r;
	int fd, segs;

	fd = open("/etc/ipcwatch-probe.ini", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "[rule all]\nmax_segments = 8\n", 28) != 28)
		exit(2);
	close(fd);
	fresh_ipc_ns();

	tap_is(ipcwatch_exec(&r, argv, NULL, NULL), 1,
	       "degraded.enforce.lsm_listed_off.exit_status");
	if (!tap_ok(strstr(r.err, "the BPF LSM is not active "
			   "(/sys/kernel/security/lsm: capability): boot with "
			   "lsm=capability,bpf") &&
		    strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		    "degraded.enforce.lsm_listed_off.one_line"))
		tap_diag("  stderr: %s", r.err);
	ipcwatch_free(&r);
	tap_is(bpf_prog_count(), baseline_progs,
	       "degraded.enforce.lsm_listed_off.nothing_left_loaded");

	/* no securityfs: the attach succeeds, the test refusal proves it off */
	segs = segments_in_proc();
	tap_is(ipcwatch_exec(&r, argv, without_securityfs, NULL), 1,
	       "degraded.enforce.lsm_unlisted.exit_status");
	if (!tap_ok(strstr(r.err, "the BPF LSM is not active: a test shmget() "
			   "that the policy must refuse was allowed; add bpf "
			   "to lsm=") &&
		    strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		    "degraded.enforce.lsm_unlisted.one_line"))
		tap_diag("  stderr: %s", r.err);
	ipcwatch_free(&r);
	tap_is(bpf_prog_count(), baseline_progs,
	       "degraded.enforce.lsm_unlisted.nothing_left_loaded");
	tap_is(segments_in_proc(), segs,
	       "degraded.enforce.lsm_unlisted.no_segment_left");

	/* the removal guard alone fails closed the same way */
	fd = open("/etc/ipcwatch-probe.ini", O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, "[policy]\nguard_rmid = deny\n", 27) != 27)
		exit(2);
	close(fd);
	tap_is(ipcwatch_exec(&r, argv, NULL, NULL), 1,
	       "degraded.enforce.guard_lsm_off.exit_status");
	if (!tap_ok(strstr(r.err, "the BPF LSM is not active "
			   "(/sys/kernel/security/lsm: capability)") &&
		    strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		    "degraded.enforce.guard_lsm_off.one_line"))
		tap_diag("  stderr: %s", r.err);
	ipcwatch_free(&r);
	tap_is(ipcwatch_exec(&r, argv, without_securityfs, NULL), 1,
	       "degraded.enforce.guard_unlisted.exit_status");
	if (!tap_ok(strstr(r.err, "the BPF LSM is not active: a test shmget()") &&
		    strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
		    "degraded.enforce.guard_unlisted.one_line"))
		tap_diag("  stderr: %s", r.err);
	ipcwatch_free(&r);
	tap_is(bpf_prog_count(), baseline_progs,
	       "degraded.enforce.guard.nothing_left_loaded");
	tap_is(segments_in_proc(), segs,
	       "degraded.enforce.guard.no_segment_left");
	tap_ok(access("/sys/fs/bpf/ipcwatch/maps/pin_info", F_OK) != 0,
	       "degraded.enforce.guard.nothing_pinned");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	baseline_progs = bpf_prog_count();
	if (on_kernel("stock")) {
		test_stock_kernel();
	} else if (on_kernel("preseed")) {
		test_degraded_probe();
		test_degraded_events();
		test_degraded_enforce();
	} else {
		test_main_kernel();
	}
	return tap_done();
}
