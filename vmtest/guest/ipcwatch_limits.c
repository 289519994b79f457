// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch limits, end to end: its --json against ground truth read
 * here from /proc/sys/kernel, shmctl(SHM_INFO) and semctl(SEM_INFO), in
 * namespaces set up to show each hazard.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

#include "ipcutil.h"
#include "runner.h"
#include "tap.h"

const char *tap_suite = "ipcwatch_limits";

static const char *const json_argv[] = { "ipcwatch", "limits", "--json",
					  NULL };

static bool has_hazard(json_object *doc, const char *name)
{
	json_object *list, *h;
	size_t i;

	if (!json_object_object_get_ex(doc, "hazards", &list))
		return false;
	for (i = 0; i < json_object_array_length(list); i++) {
		h = json_object_array_get_idx(list, i);
		if (!strcmp(jstr(h, "name"), name))
			return true;
	}
	return false;
}

static json_object *usage_row(json_object *doc, const char *name)
{
	json_object *list, *row;
	size_t i;

	if (!json_object_object_get_ex(doc, "usage", &list))
		return NULL;
	for (i = 0; i < json_object_array_length(list); i++) {
		row = json_object_array_get_idx(list, i);
		if (!strcmp(jstr(row, "name"), name))
			return row;
	}
	return NULL;
}

static void test_ground_truth(void)
{
	struct ipcwatch_run r;
	struct shm_info shm;
	struct seminfo sem;
	unsigned long sems[4];
	json_object *doc, *row;
	FILE *f;
	int i;

	fresh_ipc_ns();
	sysctl_must_set("shmmni", 100);
	for (i = 0; i < 7; i++)
		shmget(IPC_PRIVATE, 5000 * (i + 1), IPC_CREAT | 0600);
	semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
	semget(IPC_PRIVATE, 5, IPC_CREAT | 0600);

	tap_is(ipcwatch_exec(&r, json_argv, NULL, NULL), 0, "json.exit_status");
	doc = r.nevents ? r.events[0] : NULL;
	tap_is(r.nevents, 1, "json.one_document");
	shmctl(0, SHM_INFO, (struct shmid_ds *)&shm);
	semctl(0, 0, SEM_INFO, &sem);
	f = fopen("/proc/sys/kernel/sem", "r");
	if (!f || fscanf(f, "%lu %lu %lu %lu", &sems[0], &sems[1], &sems[2],
			 &sems[3]) != 4)
		exit(2);
	fclose(f);

	tap_is_u(juint(doc, "ipcns"), ipc_ns_inum(), "json.ipcns");
	tap_is_u(juint(doc, "shmmax"), sysctl_get("shmmax"), "json.shmmax");
	tap_is_u(juint(doc, "shmall"), sysctl_get("shmall"), "json.shmall");
	tap_is_u(juint(doc, "shmmni"), 100, "json.shmmni");
	tap_is_u(juint(doc, "shm_rmid_forced"), 0, "json.shm_rmid_forced");
	tap_ok(juint(doc, "semmsl") == sems[0] && juint(doc, "semmns") == sems[1]
	       && juint(doc, "semopm") == sems[2] &&
	       juint(doc, "semmni") == sems[3], "json.sem_limits");
	tap_is_u(juint(doc, "segments"), shm.used_ids, "json.segments");
	tap_is_u(juint(doc, "segments"), 7, "json.segments_created");
	tap_is_u(juint(doc, "shm_tot"), shm.shm_tot, "json.shm_tot");
	/* 5000..35000 bytes: 2+3+4+5+7+8+9 pages */
	tap_is_u(juint(doc, "shm_tot"), 38, "json.shm_tot_pages");
	tap_is_u(juint(doc, "sem_sets"), sem.semusz, "json.sem_sets");
	tap_is_u(juint(doc, "semaphores"), 8, "json.semaphores");
	row = usage_row(doc, "segments");
	tap_ok(row && jint(row, "used") == 7 && jint(row, "limit") == 100,
	       "json.usage_segments");
	row = usage_row(doc, "shm_tot");
	tap_ok(row && jint(row, "used") == 38 * 4096 &&
	       jint(row, "bytes") == 1, "json.usage_shm_tot_bytes");
	/* shmall x page size is past 2^64 at the default: still exact,
	 * which a double (json-c's reading of it) cannot show */
	tap_ok(strstr(r.out, "\"shmall_bytes\":75557863725845603938304,") !=
	       NULL, "json.shmall_bytes_128bit");
	tap_ok(has_hazard(doc, "shmmax_near_ulong_max"),
	       "hazard.default_shmmax_near_ulong_max");
	tap_ok(has_hazard(doc, "unlimited_without_rmid_forced"),
	       "hazard.default_unlimited_without_rmid_forced");
	ipcwatch_free(&r);
}

static void test_hazards(void)
{
	struct ipcwatch_run r;
	json_object *doc;
	const char *text_argv[] = { "ipcwatch", "limits", NULL };

	fresh_ipc_ns();
	sysctl_must_set("shmall", 0);
	sysctl_must_set("shm_rmid_forced", 1);
	ipcwatch_exec(&r, json_argv, NULL, NULL);
	doc = r.nevents ? r.events[0] : NULL;
	tap_ok(has_hazard(doc, "shm_disabled"), "hazard.shmall_zero");
	tap_ok(!has_hazard(doc, "unlimited_without_rmid_forced"),
	       "hazard.rmid_forced_on_clears_unlimited");
	ipcwatch_free(&r);

	sysctl_must_set("shmmax", 64 << 20);
	sysctl_must_set("shmall", 1000);
	ipcwatch_exec(&r, json_argv, NULL, NULL);
	doc = r.nevents ? r.events[0] : NULL;
	tap_ok(has_hazard(doc, "shmall_below_shmmax"),
	       "hazard.shmall_below_shmmax");
	tap_ok(!has_hazard(doc, "shmmax_near_ulong_max"),
	       "hazard.lowered_shmmax_clears_margin");
	ipcwatch_free(&r);

	sysctl_must_set("shmmni", 10);
	for (int i = 0; i < 9; i++)
		shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	ipcwatch_exec(&r, json_argv, NULL, NULL);
	doc = r.nevents ? r.events[0] : NULL;
	tap_ok(has_hazard(doc, "near_limit"), "hazard.segments_near_shmmni");
	ipcwatch_free(&r);

	tap_is(ipcwatch_exec(&r, text_argv, NULL, NULL), 0, "text.exit_status");
	tap_ok(strstr(r.out, "kernel.shmmni            10") &&
	       strstr(r.out, "segments     9 ") &&
	       strstr(r.out, "near_limit: segments at 90% of kernel.shmmni"),
	       "text.shows_limits_use_and_hazards");
	ipcwatch_free(&r);
}

static void test_bad_input(void)
{
	const char *argv[] = { "ipcwatch", "limits", "--frob", NULL };
	struct ipcwatch_run r;

	tap_is(ipcwatch_exec(&r, argv, NULL, NULL), 2, "bad_input.exit_status");
	tap_ok(strstr(r.err, "unrecognized option '--frob'") &&
	       strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
	       "bad_input.one_line");
	ipcwatch_free(&r);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_ground_truth();
	test_hazards();
	test_bad_input();
	return tap_done();
}
