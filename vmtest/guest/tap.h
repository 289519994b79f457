/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for the guest suites. Each suite is one static
 * program; the host sums the "ok"/"not ok" lines of all of them.
 * Test names are "<suite>.<check>" so the pre-seed manifest can name
 * them.
 */
#ifndef IPCWATCH_TAP_H
#define IPCWATCH_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

extern const char *tap_suite;

/* Report one check; returns pass so callers can chain diagnostics. */
bool tap_ok(bool pass, const char *name_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Report one check comparing two integers, with a diagnostic on failure. */
bool tap_is(long long got, long long want, const char *name_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same for unsigned values that may exceed LLONG_MAX. */
bool tap_is_u(unsigned long long got, unsigned long long want,
	      const char *name_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same for strings (NULL reads as ""); the diagnostic escapes both. */
bool tap_str(const char *got, const char *want, const char *name_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "# ..." line, for context in the log */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print the plan; exit status 0 if every check passed, 1 otherwise. */
int tap_done(void);

#endif
