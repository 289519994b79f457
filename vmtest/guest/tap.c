// SPDX-License-Identifier: GPL-2.0
#include "tap.h"

#include <stdlib.h>
#include <string.h>

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

/* @s on one line, whatever it holds: the judge reads every line */
static void put_escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

bool tap_str(const char *got, const char *want, const char *name_fmt, ...)
{
	bool pass;
	va_list ap;

	got = got ? got : "";
	want = want ? want : "";
	pass = !strcmp(got, want);
	va_start(ap, name_fmt);
	tap_line(pass, name_fmt, ap);
	va_end(ap);
	if (!pass) {
		fputs("#   got '", stdout);
		put_escaped(got);
		fputs("', want '", stdout);
		put_escaped(want);
		fputs("'\n", stdout);
		fflush(stdout);
	}
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
