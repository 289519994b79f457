// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "event.h"

static struct ipcw_event create_event(uint32_t reason, int err)
{
	struct ipcw_event e;

	memset(&e, 0, sizeof(e));
	e.type = IPCW_SHM_CREATE;
	e.pid = 42;
	memcpy(e.comm, "postgres", 9);
	e.shm_create.reason = reason;
	e.shm_create.err = err;
	return e;
}

static void event_decode_copies_a_valid_record(void **state)
{
	struct ipcw_event in = create_event(IPCW_CREATE_OK, 0), out;

	(void)state;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	assert_memory_equal(&in, &out, sizeof(in));
}

static void event_decode_rejects_short_record(void **state)
{
	struct ipcw_event in = create_event(IPCW_CREATE_OK, 0), out;

	(void)state;
	assert_int_equal(event_decode(&in, sizeof(in) - 1, &out), -EINVAL);
}

static void event_decode_rejects_bad_codes(void **state)
{
	struct ipcw_event in = create_event(IPCW_CREATE_REASON_MAX, 0), out;

	(void)state;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in = create_event(IPCW_CREATE_OK, 0);
	in.type = 0;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.type = IPCW_TYPE_MAX;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.type = IPCW_SHM_DESTROY;
	in.shm_destroy.cause = IPCW_DESTROY_CAUSE_MAX;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);

	memset(&in, 0, sizeof(in));
	in.type = IPCW_SHMAT;
	in.shmat.reason = IPCW_SHMAT_REASON_MAX;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.shmat.reason = IPCW_SHMAT_ADDR_WRAP;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.shmat.args_known = 2;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);

	memset(&in, 0, sizeof(in));
	in.type = IPCW_SEM_WAKE;
	in.sem_wake.timed_out = 1;	/* told by a hook that cannot tell */
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_wake.timed_out_known = 1;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.sem_wake.timed_out_known = 3;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
}

static void event_decode_checks_sem_records(void **state)
{
	struct ipcw_event in, out;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.type = IPCW_SEM_CREATE;
	in.sem_create.reason = IPCW_SEM_CREATE_OVER_SEMMNS;
	in.sem_create.err = ENOSPC;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.sem_create.reason = IPCW_SEM_CREATE_REASON_MAX;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	/* a refusal has an errno, a creation none */
	in.sem_create.reason = IPCW_SEM_CREATE_OK;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_create.err = 0;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.sem_create.reason = IPCW_SEM_CREATE_NO_IDS;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);

	memset(&in, 0, sizeof(in));
	in.type = IPCW_SEM_DESTROY;
	in.sem_destroy.cause = IPCW_SEM_DESTROY_NS_EXIT;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.sem_destroy.cause = IPCW_SEM_DESTROY_CAUSE_MAX;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_destroy.cause = IPCW_SEM_DESTROY_RMID;
	/* counts told by a hook that cannot count */
	in.sem_destroy.waiters = 2;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_destroy.counts_known = 1;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.sem_destroy.undos = -1;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_destroy.undos = 0;
	in.sem_destroy.counts_known = 2;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);

	memset(&in, 0, sizeof(in));
	in.type = IPCW_SEM_UNDO;
	in.sem_undo.nsems = 4;
	in.sem_undo.adjusted = 2;
	in.sem_undo.clamped = 1;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.sem_undo.clamped = 3;	/* more clamped than adjusted */
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_undo.clamped = 0;
	in.sem_undo.adjusted = 5;	/* more adjusted than the set has */
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_undo.adjusted = 0;
	in.sem_undo.gone = 1;		/* a set gone has no semaphores */
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
	in.sem_undo.nsems = 0;
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	in.sem_undo.gone = 2;
	assert_int_equal(event_decode(&in, sizeof(in), &out), -EINVAL);
}

static void event_decode_terminates_comm(void **state)
{
	struct ipcw_event in = create_event(IPCW_CREATE_OK, 0), out;

	(void)state;
	memset(in.comm, 'x', sizeof(in.comm));
	assert_int_equal(event_decode(&in, sizeof(in), &out), 0);
	assert_int_equal(strlen(out.comm), IPCW_COMM_LEN - 1);
}

static void event_names_cover_every_code(void **state)
{
	uint32_t i;

	(void)state;
	for (i = 1; i < IPCW_TYPE_MAX; i++)
		assert_string_not_equal(event_type_name(i), "unknown");
	for (i = 0; i < IPCW_CREATE_REASON_MAX; i++)
		assert_string_not_equal(shm_reason_name(i), "unknown");
	for (i = 0; i < IPCW_DESTROY_CAUSE_MAX; i++)
		assert_string_not_equal(destroy_cause_name(i), "unknown");
	for (i = 0; i < IPCW_SHMAT_REASON_MAX; i++)
		assert_string_not_equal(shmat_reason_name(i), "unknown");
	assert_string_equal(shmat_reason_name(IPCW_SHMAT_ADDR_WRAP),
			    "addr_wrap");
	assert_string_equal(shmat_reason_name(IPCW_SHMAT_ADDR_OVERLAP),
			    "addr_overlap");
	assert_string_equal(shmat_reason_name(IPCW_SHMAT_REASON_MAX),
			    "unknown");
	assert_string_equal(event_type_name(IPCW_SHM_ORPHAN), "shm_orphan");
	/* the cause names the kernel's tracepoints print, every one */
	assert_int_equal(IPCW_DESTROY_CAUSE_MAX, 8);
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_RMID), "rmid");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_LAST_DETACH),
			    "last_detach");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_ORPHAN_EXIT),
			    "orphan_exit");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_ORPHAN_SYSCTL),
			    "orphan_sysctl");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_NS_EXIT),
			    "ns_exit");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_FORCED_DETACH),
			    "forced_detach");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_UNEXPLAINED),
			    "unexplained");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_SHMAT_FAILED),
			    "shmat_failed");
	assert_string_equal(destroy_cause_name(IPCW_DESTROY_CAUSE_MAX),
			    "unknown");
	assert_string_equal(event_type_name(IPCW_TYPE_MAX), "unknown");
	/* the semaphore names, as the kernel's print formats have them */
	for (i = 0; i < IPCW_SEM_CREATE_REASON_MAX; i++)
		assert_string_not_equal(sem_reason_name(i), "unknown");
	for (i = 0; i < IPCW_SEM_DESTROY_CAUSE_MAX; i++)
		assert_string_not_equal(sem_destroy_cause_name(i), "unknown");
	assert_string_equal(event_type_name(IPCW_SEM_CREATE), "sem_create");
	assert_string_equal(event_type_name(IPCW_SEM_DESTROY), "sem_destroy");
	assert_string_equal(event_type_name(IPCW_SEM_UNDO), "sem_undo");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_BAD_NSEMS),
			    "bad_nsems");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_OVER_SEMMSL),
			    "over_semmsl");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_NO_NSEMS),
			    "no_nsems");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_OVER_SEMMNS),
			    "over_semmns");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_NO_IDS),
			    "no_ids");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_EXISTING_FEWER),
			    "existing_fewer");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_LSM_DENIED),
			    "lsm_denied");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_NOMEM), "nomem");
	assert_string_equal(sem_reason_name(IPCW_SEM_CREATE_REASON_MAX),
			    "unknown");
	assert_string_equal(sem_destroy_cause_name(IPCW_SEM_DESTROY_RMID),
			    "rmid");
	assert_string_equal(sem_destroy_cause_name(IPCW_SEM_DESTROY_NS_EXIT),
			    "ns_exit");
	assert_string_equal(sem_destroy_cause_name(IPCW_SEM_DESTROY_CAUSE_MAX),
			    "unknown");
}

static void event_failed_per_type(void **state)
{
	struct ipcw_event e = create_event(IPCW_CREATE_OVER_SHMMAX, EINVAL);

	(void)state;
	assert_true(event_failed(&e));
	e.shm_create.err = 0;
	assert_false(event_failed(&e));
	e.type = IPCW_SHMCTL;
	e.shmctl.ret = -EINVAL;
	assert_true(event_failed(&e));
	e.type = IPCW_SHM_DESTROY;
	assert_false(event_failed(&e));
	memset(&e, 0, sizeof(e));
	e.type = IPCW_SEM_CREATE;
	assert_false(event_failed(&e));
	e.sem_create.err = ENOSPC;
	assert_true(event_failed(&e));
	e.type = IPCW_SEM_UNDO;
	assert_false(event_failed(&e));
}

static void event_cmd_and_errno_names(void **state)
{
	(void)state;
	assert_string_equal(shmctl_cmd_name(0), "IPC_RMID");
	assert_string_equal(shmctl_cmd_name(14), "SHM_INFO");
	assert_null(shmctl_cmd_name(99));
	assert_string_equal(errno_name(EIDRM), "EIDRM");
	assert_string_equal(errno_name(ENOSPC), "ENOSPC");
	assert_null(errno_name(9999));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(event_decode_copies_a_valid_record),
		cmocka_unit_test(event_decode_rejects_short_record),
		cmocka_unit_test(event_decode_rejects_bad_codes),
		cmocka_unit_test(event_decode_checks_sem_records),
		cmocka_unit_test(event_decode_terminates_comm),
		cmocka_unit_test(event_names_cover_every_code),
		cmocka_unit_test(event_failed_per_type),
		cmocka_unit_test(event_cmd_and_errno_names),
	};

	return cmocka_run_group_tests_name("event", tests, NULL, NULL);
}
