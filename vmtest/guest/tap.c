// SPDX-License-Identifier: GPL-2.0
#include "tap.h"

#include <stdlib.h>

static int tap_count;
static int tap_failures;

static void tap_line(bool pass, const char *name_fmt, va_list ap)
{
	tap_count++;
	if (!pass)
		tap_failures++;
	printf("%sok %d - %s.", pass ? "" : "not ", tap_count, tap_suite);
	vprintf(name_fmt, ap);
	putchar('\n');
	fflush(stdout);
}

bool tap_ok(bool pass, const char *name_fmt, ...)
{
	va_list ap;

	va_start(ap, name_fmt);
	tap_line(pass, name_fmt, ap);
	va_end(ap);
	return pass;
}

bool tap_is(long long got, long long want, const char *name_fmt, ...)
{
	bool pass = got == want;
	va_list ap;

	va_start(ap, name_fmt);
	tap_line(pass, name_fmt, ap);
	va_end(ap);
	if (!pass)
		tap_diag("  got %lld, want %lld", got, want);
	return pass;
}

bool tap_is_u(unsigned long long got, unsigned long long want,
	      const char *name_fmt, ...)
{
	bool pass = got == want;
	va_list ap;

	va_start(ap, name_fmt);
	tap_line(pass, name_fmt, ap);
	va_end(ap);
	if (!pass)
		tap_diag("  got %llu, want %llu", got, want);
	return pass;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

int tap_done(void)
{
	printf("1..%d\n", tap_count);
	fflush(stdout);
	return tap_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
