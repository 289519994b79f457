/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event decoder: the one place a ring buffer record becomes a
 * struct ipcw_event, and where its codes get their names.
 */
#ifndef IPCWATCH_EVENT_H
#define IPCWATCH_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcwatch.h"

/* Check and copy a record: 0, or -EINVAL for a malformed one. */
int event_decode(const void *data, size_t size, struct ipcw_event *out);

/* Whether the event reports a refusal or an error. */
bool event_failed(const struct ipcw_event *e);

const char *event_type_name(uint32_t type);	/* "shm_create" */
const char *shm_reason_name(uint32_t reason);	/* "over_shmmax" */
const char *destroy_cause_name(uint32_t cause);	/* "orphan_exit" */
const char *shmat_reason_name(uint32_t reason);	/* "addr_wrap" */
const char *sem_reason_name(uint32_t reason);	/* "over_semmns" */
const char *sem_destroy_cause_name(uint32_t cause);	/* "ns_exit" */
const char *shmctl_cmd_name(int cmd);		/* "IPC_RMID", NULL if unknown */
const char *errno_name(int err);		/* "EINVAL", NULL if unknown */

const char *mode_name(enum ipcw_mode mode);	/* "tracepoint" */
/* "auto", "tracepoint", "fentry": 0, or -EINVAL */
int parse_mode(const char *s, enum ipcw_mode *mode);

#endif
