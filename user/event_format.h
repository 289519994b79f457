/* SPDX-License-Identifier: GPL-2.0 */
/* Events in words (text) and as NDJSON, for `ipcwatch events`. */
#ifndef IPCWATCH_EVENT_FORMAT_H
#define IPCWATCH_EVENT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipcwatch.h"
#include "json_writer.h"

struct format_opts {
	bool timestamps;	/* -T: wall clock time first */
	int64_t mono_to_real_ns; /* add to ts_ns for the wall clock */
	uint64_t page_size;
};

/* Why a shmget() was refused, in words; "" for success. */
const char *shm_reason_text(const struct ipcw_shm_create *c,
			    uint64_t page_size, char *buf, size_t len);

/* Why a semget() was refused, in words; "" for success. */
const char *sem_reason_text(const struct ipcw_sem_create *c, char *buf,
			    size_t len);

/* Why a shmat() was refused, in words; "" for success. */
const char *shmat_reason_text(const struct ipcw_shmat *s, char *buf,
			      size_t len);

/* Why a task that slept in semop() returned, in words. */
const char *sem_wake_text(const struct ipcw_sem_wake *w, char *buf,
			  size_t len);

/* One line of text, newline included. */
void event_print_text(FILE *out, const struct ipcw_event *e,
		      const struct format_opts *opts);

/* One JSON object, as a line of NDJSON. */
void event_print_json(struct json_writer *jw, const struct ipcw_event *e,
		      const struct format_opts *opts);

/* The header line of the text output. */
void event_print_header(FILE *out, const struct format_opts *opts);

#endif
