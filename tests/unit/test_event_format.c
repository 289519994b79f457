// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "event_format.h"
#include "json_writer.h"

#define SHM_HUGE_SHIFT_ 26	/* linux/shm.h clashes with sys/shm.h */

static const struct format_opts opts = { .page_size = 4096 };

static struct ipcw_shm_create refused(uint32_t reason)
{
	struct ipcw_shm_create c = {
		.shmmax = 64ULL << 30,
		.shmall = 2097152,
		.shmmni = 4096,
		.id = -1,
		.key = 0x5432001,
		.reason = reason,
	};
	return c;
}

static const char *why(const struct ipcw_shm_create *c)
{
	static char buf[256];

	return shm_reason_text(c, 4096, buf, sizeof(buf));
}

static void format_reason_over_shmmax(void **state)
{
	struct ipcw_shm_create c = refused(IPCW_CREATE_OVER_SHMMAX);

	(void)state;
	c.size = 96ULL << 30;
	assert_string_equal(why(&c), "size 96 GiB > kernel.shmmax 64 GiB");
}

static void format_reason_existing_smaller(void **state)
{
	struct ipcw_shm_create c = refused(IPCW_CREATE_EXISTING_SMALLER);

	(void)state;
	c.size = 32 << 20;
	c.existing_size = 16 << 20;
	assert_string_equal(why(&c),
			    "existing segment key 0x5432001 is 16 MiB, smaller "
			    "than the 32 MiB requested");
}

static void format_reason_over_shmall(void **state)
{
	struct ipcw_shm_create c = refused(IPCW_CREATE_OVER_SHMALL);

	(void)state;
	/* 2097152 pages in use + 838861 pages: over by 3.2 GiB */
	c.shm_tot = 2097152;
	c.pages = 838861;
	assert_string_equal(why(&c),
			    "over kernel.shmall by 3.2 GiB (2097152 pages in "
			    "use + 838861 > 2097152)");
	c.shmall = 0;
	c.shm_tot = 0;
	assert_string_equal(why(&c),
			    "kernel.shmall is 0: shm allocation disabled");
}

static void format_reason_wraps(void **state)
{
	struct ipcw_shm_create c = refused(IPCW_CREATE_PAGE_OVERFLOW);

	(void)state;
	c.size = UINT64_MAX - 10;
	assert_string_equal(why(&c),
			    "page round-up overflow: size 18446744073709551605 "
			    "does not round up to whole pages");
	c = refused(IPCW_CREATE_TOTAL_WRAP);
	c.shm_tot = 8191ULL << 51;
	c.pages = 1ULL << 51;
	assert_non_null(strstr(why(&c), "shm_tot would wrap"));
}

/*
 * Every refusal reason's name and words, pinned exactly for a record the
 * kernel could send with that reason: the size each row gives (0 for
 * too_small, one that cannot round up to pages for page_overflow), 2000000
 * pages in use, 262144 pages asked, an existing 1 MiB segment, huge page
 * order 21. A reason added to the enum without a row here fails the test.
 */
static const struct {
	uint32_t reason;
	uint64_t size;
	const char *name;
	const char *text;
} pinned_reasons[] = {
	{ IPCW_CREATE_OK, 1ULL << 30, "ok", "" },
	{ IPCW_CREATE_TOO_SMALL, 0, "too_small", "size 0 < SHMMIN 1 byte" },
	{ IPCW_CREATE_OVER_SHMMAX, 1ULL << 30, "over_shmmax",
	  "size 1 GiB > kernel.shmmax 64 GiB" },
	{ IPCW_CREATE_PAGE_OVERFLOW, UINT64_MAX - 10, "page_overflow",
	  "page round-up overflow: size 18446744073709551605 does not round "
	  "up to whole pages" },
	{ IPCW_CREATE_TOTAL_WRAP, 1ULL << 30, "total_wrap",
	  "shm_tot would wrap: 2000000 pages in use + 262144 pages exceed 2^64" },
	{ IPCW_CREATE_OVER_SHMALL, 1ULL << 30, "over_shmall",
	  "over kernel.shmall by 644.5 MiB (2000000 pages in use + 262144 > 2097152)" },
	{ IPCW_CREATE_NO_IDS, 1ULL << 30, "no_ids",
	  "kernel.shmmni reached: 4096 segments exist" },
	{ IPCW_CREATE_EXISTING_SMALLER, 1ULL << 30, "existing_smaller",
	  "existing segment key 0x5432001 is 1 MiB, smaller than the 1 GiB "
	  "requested" },
	{ IPCW_CREATE_LSM_DENIED, 1ULL << 30, "lsm_denied",
	  "refused by a security module" },
	{ IPCW_CREATE_NOMEM, 1ULL << 30, "nomem",
	  "out of memory for the segment" },
	{ IPCW_CREATE_FILE_SETUP, 1ULL << 30, "file_setup",
	  "shmem file setup failed (memory accounting or hugetlbfs)" },
	{ IPCW_CREATE_BAD_HUGEPAGE, 1ULL << 30, "bad_hugepage",
	  "no huge page size 2^21" },
	{ IPCW_CREATE_UNEXPLAINED, 1ULL << 30, "unexplained",
	  "refused past the limit checks; this kernel lacks the hook that "
	  "tells why (ipcwatch probe)" },
};

static void format_reason_every_code_pinned(void **state)
{
	size_t n = sizeof(pinned_reasons) / sizeof(pinned_reasons[0]);
	uint32_t r;
	size_t i;

	(void)state;
	for (r = 0; r < IPCW_CREATE_REASON_MAX; r++) {
		struct ipcw_shm_create c = refused(r);

		for (i = 0; i < n && pinned_reasons[i].reason != r; i++)
			;
		if (i == n)
			fail_msg("reason %u has no pinned text", r);
		c.size = pinned_reasons[i].size;
		c.shm_tot = 2000000;
		c.pages = 262144;
		c.existing_size = 1 << 20;
		c.shmflg = 21 << SHM_HUGE_SHIFT_;
		assert_string_equal(shm_reason_name(r), pinned_reasons[i].name);
		assert_string_equal(why(&c), pinned_reasons[i].text);
	}
	assert_int_equal(n, IPCW_CREATE_REASON_MAX);
	assert_string_equal(shm_reason_name(IPCW_CREATE_REASON_MAX), "unknown");
}

/* A reason from a newer kernel than this decoder is named by its number. */
static void format_reason_unknown_named_by_number(void **state)
{
	struct ipcw_shm_create c = refused(IPCW_CREATE_REASON_MAX + 7);
	char want[64];

	(void)state;
	c.size = 1ULL << 30;
	snprintf(want, sizeof(want), "unknown reason %u",
		 IPCW_CREATE_REASON_MAX + 7);
	assert_string_equal(why(&c), want);
}

/* Run one formatter into a string. */
static char *capture_text(const struct ipcw_event *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	event_print_text(f, e, &opts);
	fclose(f);
	return buf;
}

static char *capture_json(const struct ipcw_event *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer *jw = jw_new(f);

	event_print_json(jw, e, &opts);
	jw_destroy(jw);
	fclose(f);
	return buf;
}

static struct ipcw_event refused_event(void)
{
	struct ipcw_event e;

	memset(&e, 0, sizeof(e));
	e.type = IPCW_SHM_CREATE;
	e.pid = 1234;
	e.tid = 1234;
	e.uid = 1000;
	e.ipcns = 4026531839u;
	strcpy(e.comm, "postgres");
	e.shm_create = refused(IPCW_CREATE_OVER_SHMMAX);
	e.shm_create.size = 96ULL << 30;
	e.shm_create.pages = 25165824;
	e.shm_create.err = EINVAL;
	return e;
}

static void format_text_line_of_refusal(void **state)
{
	struct ipcw_event e = refused_event();
	char *s = capture_text(&e);

	(void)state;
	assert_string_equal(s,
			    "1234    postgres         shm_create  REFUSED EINVAL "
			    "key 0x05432001 size 96 GiB: size 96 GiB > "
			    "kernel.shmmax 64 GiB\n");
	free(s);
}

static void format_json_numbers_are_numbers(void **state)
{
	struct ipcw_event e = refused_event();
	char *s = capture_json(&e);

	(void)state;
	assert_non_null(strstr(s, "{\"type\":\"shm_create\","));
	assert_non_null(strstr(s, "\"pid\":1234,"));
	assert_non_null(strstr(s, "\"ipcns\":4026531839,"));
	assert_non_null(strstr(s, "\"size\":103079215104,"));
	assert_non_null(strstr(s, "\"shmmax\":68719476736,"));
	assert_non_null(strstr(s, "\"key\":88285185,"));
	assert_non_null(strstr(s, "\"err\":22,\"errno\":\"EINVAL\""));
	assert_non_null(strstr(s, "\"reason\":\"over_shmmax\""));
	assert_non_null(strstr(s, "\"reason_text\":\"size 96 GiB > "
			       "kernel.shmmax 64 GiB\"}\n"));
	/* one line: NDJSON */
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
	free(s);
}

static void format_json_sem_and_destroy(void **state)
{
	struct ipcw_event e;
	char *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SEM_BLOCK;
	e.sem_block.id = 7;
	e.sem_block.nsops = 2;
	e.sem_block.index = 1;
	e.sem_block.sem_op = -1;
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"id\":7,\"nsops\":2,\"index\":1,"
			       "\"sem_num\":0,\"sem_op\":-1,\"sem_flg\":0,"
			       "\"counts_as\":\"ncnt\",\"timeout\":false}"));
	free(s);

	memset(&e, 0, sizeof(e));
	e.type = IPCW_SHM_DESTROY;
	e.shm_destroy.cause = IPCW_DESTROY_ORPHAN_EXIT;
	e.shm_destroy.cpid = 77;
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"cpid\":77,"));
	assert_non_null(strstr(s, "\"cause\":\"orphan_exit\"}"));
	free(s);
}

/* Found by the event_decoder fuzz target: no record may overflow. */
static void format_time_of_any_record(void **state)
{
	struct format_opts stamped = {
		.timestamps = true,
		.mono_to_real_ns = 1700000000LL * 1000000000LL,
		.page_size = 4096,
	};
	struct ipcw_event e = refused_event();
	struct json_writer *jw;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	e.ts_ns = 9079256848778920936ULL;	/* the fuzzer's */
	f = open_memstream(&buf, &len);
	event_print_text(f, &e, &stamped);
	e.ts_ns = UINT64_MAX;
	jw = jw_new(f);
	event_print_json(jw, &e, &stamped);
	jw_destroy(jw);
	fclose(f);
	/* saturated: the latest time there is */
	assert_non_null(strstr(buf, "\"time_ns\":9223372036854775807,"));
	free(buf);
}

static void format_shmctl_result_of_any_record(void **state)
{
	struct ipcw_event e;
	char *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SHMCTL;
	e.shmctl.id = 3;
	e.shmctl.cmd = 0;	/* IPC_RMID */
	e.shmctl.ret = -EPERM;
	s = capture_text(&e);
	assert_non_null(strstr(s, "id 3 IPC_RMID -> EPERM\n"));
	free(s);
	/* not an errno, and -2^63 cannot be negated */
	e.shmctl.ret = INT64_MIN;
	s = capture_text(&e);
	assert_non_null(strstr(s, "id 3 IPC_RMID -> -9223372036854775808\n"));
	free(s);
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"ret\":-9223372036854775808,\"err\":0,"));
	free(s);
}

/* Every shmat reason has its own text: no two say the same. */
static void format_shmat_every_reason_told(void **state)
{
	char seen[IPCW_SHMAT_REASON_MAX][256], buf[256];
	struct ipcw_shmat a = { .size = 4096, .err = EINVAL };
	uint32_t r, q;

	(void)state;
	for (r = 0; r < IPCW_SHMAT_REASON_MAX; r++) {
		a.reason = (uint16_t)r;
		shmat_reason_text(&a, seen[r], sizeof(seen[r]));
		assert_true(r == IPCW_SHMAT_OK ? seen[r][0] == '\0' :
						  seen[r][0] != '\0');
		for (q = 0; q < r; q++)
			assert_string_not_equal(seen[q], seen[r]);
	}
	a.reason = IPCW_SHMAT_ADDR_WRAP;
	assert_string_equal(shmat_reason_text(&a, buf, sizeof(buf)),
			    "address + size 4 KiB wraps around");
	a.reason = IPCW_SHMAT_REASON_MAX + 2;
	snprintf(seen[0], sizeof(seen[0]), "unknown reason %u",
		 IPCW_SHMAT_REASON_MAX + 2);
	assert_string_equal(shmat_reason_text(&a, buf, sizeof(buf)), seen[0]);
}

/* The kernel's shmat event has no address: text and JSON say less. */
static void format_shmat_without_arguments(void **state)
{
	struct ipcw_event e;
	char *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SHMAT;
	e.shmat.id = 5;
	e.shmat.size = 8192;
	e.shmat.err = EINVAL;
	e.shmat.reason = IPCW_SHMAT_ADDR_OVERLAP;
	s = capture_text(&e);
	assert_non_null(strstr(s, "REFUSED EINVAL id 5: the 8 KiB range "
			       "overlaps a mapping (no SHM_REMAP)\n"));
	free(s);
	s = capture_json(&e);
	assert_null(strstr(s, "\"raddr\""));
	assert_null(strstr(s, "\"addr\""));
	assert_non_null(strstr(s, "\"reason\":\"addr_overlap\","));
	assert_non_null(strstr(s, "\"addr_wrap\":false}"));
	free(s);
	e.shmat.args_known = 1;
	e.shmat.addr = 0x1000;
	e.shmat.reason = IPCW_SHMAT_ADDR_WRAP;
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"addr\":4096,\"shmflg\":0,"
			       "\"raddr\":0,"));
	assert_non_null(strstr(s, "\"addr_wrap\":true}"));
	free(s);
}

/* EAGAIN has two causes: the timeout, or IPC_NOWAIT at the re-check. */
static void format_sem_wake_results(void **state)
{
	struct ipcw_sem_wake w = { .err = EAGAIN };
	char buf[256];
	struct ipcw_event e;
	char *s;

	(void)state;
	assert_non_null(strstr(sem_wake_text(&w, buf, sizeof(buf)),
			       "timeout, or an IPC_NOWAIT"));
	w.timed_out_known = 1;
	w.timed_out = 1;
	assert_string_equal(sem_wake_text(&w, buf, sizeof(buf)),
			    "EAGAIN: timed out");
	w.timed_out = 0;
	assert_non_null(strstr(sem_wake_text(&w, buf, sizeof(buf)),
			       "IPC_NOWAIT operation could not proceed"));
	w.err = ERANGE;
	assert_non_null(strstr(sem_wake_text(&w, buf, sizeof(buf)),
			       "SEMVMX"));
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SEM_WAKE;
	e.sem_wake = w;
	e.sem_wake.err = EAGAIN;
	e.sem_wake.timed_out = 1;
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"errno\":\"EAGAIN\",\"timed_out\":true,"));
	free(s);
	e.sem_wake.timed_out_known = 0;
	s = capture_json(&e);
	assert_null(strstr(s, "timed_out\":"));
	free(s);
}

static void format_shm_orphan(void **state)
{
	struct ipcw_event e;
	char *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SHM_ORPHAN;
	e.shm_orphan.id = 9;
	e.shm_orphan.key = 0x1234;
	e.shm_orphan.size = 1 << 20;
	e.shm_orphan.pages = 256;
	e.shm_orphan.owner_uid = 1000;
	s = capture_text(&e);
	assert_non_null(strstr(s, "shm_orphan  id 9 key 0x00001234 size 1 MiB "
			       "owner 1000 outlives its creator, 0 attached"));
	free(s);
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"id\":9,\"key\":4660,\"size\":1048576,"
			       "\"pages\":256,\"owner_uid\":1000,"
			       "\"nattch\":0}"));
	free(s);
}

static struct ipcw_sem_create sem_refused(uint32_t reason, int err)
{
	struct ipcw_sem_create c = {
		.key = 0x1234,
		.nsems = 64,
		.semmsl = 250,
		.semmns = 32000,
		.semmni = 128,
		.used_sems = 31990,
		.id = -1,
		.err = err,
		.reason = reason,
	};
	return c;
}

static const char *sem_why(const struct ipcw_sem_create *c)
{
	static char buf[256];

	return sem_reason_text(c, buf, sizeof(buf));
}

/* Every reason in words, with the numbers it is about. */
static void format_sem_every_reason_told(void **state)
{
	static const struct {
		uint32_t reason;
		const char *text;
	} cases[] = {
		{ IPCW_SEM_CREATE_OK, "" },
		{ IPCW_SEM_CREATE_BAD_NSEMS,
		  "semget of 64 semaphores refused: a negative count" },
		{ IPCW_SEM_CREATE_OVER_SEMMSL,
		  "semget of 64 semaphores refused: kernel.sem semmsl 250 per "
		  "set" },
		{ IPCW_SEM_CREATE_NO_NSEMS,
		  "semget of 64 semaphores refused: a new set needs at least "
		  "one" },
		{ IPCW_SEM_CREATE_OVER_SEMMNS,
		  "semget of 64 semaphores refused: kernel.sem semmns 32000: "
		  "31990 in use + 64 asked" },
		{ IPCW_SEM_CREATE_NO_IDS,
		  "semget of 64 semaphores refused: kernel.sem semmni 128 "
		  "reached (at least that many sets)" },
		{ IPCW_SEM_CREATE_EXISTING_FEWER,
		  "semget of 64 semaphores refused: existing set key 0x1234 "
		  "has only 8 (not a kernel.sem limit)" },
		{ IPCW_SEM_CREATE_LSM_DENIED,
		  "semget of 64 semaphores refused by a security module" },
		{ IPCW_SEM_CREATE_NOMEM,
		  "semget of 64 semaphores refused: out of memory for the set" },
		{ IPCW_SEM_CREATE_UNEXPLAINED,
		  "semget of 64 semaphores refused past the limit checks; this "
		  "kernel lacks the hook that tells why (ipcwatch probe)" },
		{ IPCW_SEM_CREATE_REASON_MAX,
		  "semget of 64 semaphores refused: unknown reason 10" },
	};
	size_t i;

	(void)state;
	assert_int_equal(sizeof(cases) / sizeof(cases[0]),
			 IPCW_SEM_CREATE_REASON_MAX + 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ipcw_sem_create c = sem_refused(cases[i].reason, ENOSPC);

		c.existing_nsems = 8;
		assert_string_equal(sem_why(&c), cases[i].text);
	}
}

static void format_sem_create_lines(void **state)
{
	struct ipcw_event e;
	char *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SEM_CREATE;
	e.pid = 1234;
	strcpy(e.comm, "postgres");
	e.sem_create = sem_refused(IPCW_SEM_CREATE_OVER_SEMMNS, ENOSPC);
	s = capture_text(&e);
	assert_string_equal(s,
			    "1234    postgres         sem_create  REFUSED ENOSPC "
			    "key 0x00001234: semget of 64 semaphores refused: "
			    "kernel.sem semmns 32000: 31990 in use + 64 asked\n");
	free(s);
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"id\":-1,\"key\":4660,\"nsems\":64,"
			       "\"semflg\":0,\"semmsl\":250,\"semmns\":32000,"
			       "\"semmni\":128,\"used_sems\":31990,"
			       "\"existing_nsems\":0,\"err\":28,"
			       "\"errno\":\"ENOSPC\",\"reason\":\"over_semmns\","
			       "\"reason_text\":\"semget of 64 semaphores "
			       "refused: kernel.sem semmns 32000: 31990 in use "
			       "+ 64 asked\"}"));
	free(s);
	e.sem_create = sem_refused(IPCW_SEM_CREATE_OK, 0);
	e.sem_create.id = 3;
	e.sem_create.used_sems = 10;
	s = capture_text(&e);
	assert_non_null(strstr(s, "sem_create  id 3 key 0x00001234 64 "
			       "semaphores (10 in use before)\n"));
	free(s);
}

/* Waiters and undo records only where the mode counts them. */
static void format_sem_destroy(void **state)
{
	struct ipcw_event e;
	char *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SEM_DESTROY;
	e.sem_destroy.id = 5;
	e.sem_destroy.key = 0x77;
	e.sem_destroy.nsems = 3;
	e.sem_destroy.owner_uid = 1000;
	e.sem_destroy.cuid = 1001;
	e.sem_destroy.ctime = 1764758400;
	e.sem_destroy.cause = IPCW_SEM_DESTROY_RMID;
	e.sem_destroy.waiters = 2;
	e.sem_destroy.undos = 1;
	e.sem_destroy.counts_known = 1;
	s = capture_text(&e);
	assert_non_null(strstr(s, "sem_destroy id 5 key 0x00000077 3 semaphores "
			       "owner 1000 creator uid 1001: rmid, 2 waiting "
			       "woken with EIDRM, 1 SEM_UNDO records "
			       "dropped\n"));
	free(s);
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"id\":5,\"key\":119,\"nsems\":3,"
			       "\"owner_uid\":1000,\"cuid\":1001,\"cgid\":0,"
			       "\"ctime\":1764758400,\"waiters\":2,"
			       "\"undos\":1,\"cause\":\"rmid\"}"));
	free(s);
	e.sem_destroy.counts_known = 0;
	e.sem_destroy.cause = IPCW_SEM_DESTROY_UNEXPLAINED;
	s = capture_text(&e);
	assert_non_null(strstr(s, "creator uid 1001: unexplained\n"));
	free(s);
	s = capture_json(&e);
	assert_null(strstr(s, "waiters"));
	assert_null(strstr(s, "undos"));
	free(s);
}

static void format_sem_undo(void **state)
{
	struct ipcw_event e;
	char *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SEM_UNDO;
	e.sem_undo.id = 4;
	e.sem_undo.nsems = 8;
	e.sem_undo.adjusted = 2;
	s = capture_text(&e);
	assert_non_null(strstr(s, "sem_undo    id 4 SEM_UNDO applied to 2 of "
			       "8 semaphores\n"));
	free(s);
	e.sem_undo.clamped = 1;
	s = capture_text(&e);
	assert_non_null(strstr(s, "applied to 2 of 8 semaphores, 1 capped at 0 "
			       "or SEMVMX\n"));
	free(s);
	s = capture_json(&e);
	assert_non_null(strstr(s, "\"id\":4,\"nsems\":8,\"adjusted\":2,"
			       "\"clamped\":1,\"gone\":false}"));
	free(s);
	memset(&e.sem_undo, 0, sizeof(e.sem_undo));
	e.sem_undo.id = -1;
	e.sem_undo.gone = 1;
	s = capture_text(&e);
	assert_non_null(strstr(s, "sem_undo    SEM_UNDO not applied: the set "
			       "was removed first\n"));
	free(s);
	/* gone with the record's id: that id may name another set now */
	e.sem_undo.id = 7;
	s = capture_text(&e);
	assert_non_null(strstr(s, "sem_undo    id 7 SEM_UNDO not applied: the "
			       "set the record was for was removed (the id "
			       "may since be reused)\n"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(format_reason_over_shmmax),
		cmocka_unit_test(format_reason_existing_smaller),
		cmocka_unit_test(format_reason_over_shmall),
		cmocka_unit_test(format_reason_wraps),
		cmocka_unit_test(format_reason_every_code_pinned),
		cmocka_unit_test(format_reason_unknown_named_by_number),
		cmocka_unit_test(format_text_line_of_refusal),
		cmocka_unit_test(format_json_numbers_are_numbers),
		cmocka_unit_test(format_json_sem_and_destroy),
		cmocka_unit_test(format_time_of_any_record),
		cmocka_unit_test(format_shmctl_result_of_any_record),
		cmocka_unit_test(format_shmat_every_reason_told),
		cmocka_unit_test(format_shmat_without_arguments),
		cmocka_unit_test(format_sem_wake_results),
		cmocka_unit_test(format_shm_orphan),
		cmocka_unit_test(format_sem_every_reason_told),
		cmocka_unit_test(format_sem_create_lines),
		cmocka_unit_test(format_sem_destroy),
		cmocka_unit_test(format_sem_undo),
	};

	return cmocka_run_group_tests_name("event_format", tests, NULL, NULL);
}
