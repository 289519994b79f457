// SPDX-License-Identifier: GPL-2.0
/* printable(): what a terminal or a log line gets of a name. */
#include "unit.h"

#include <string.h>

#include "printable.h"

static const char *show(const char *s)
{
	static char buf[PRINTABLE_LEN(64)];

	return printable(buf, sizeof(buf), s);
}

static void printable_keeps_text(void **state)
{
	(void)state;
	assert_string_equal(show("postgres"), "postgres");
	assert_string_equal(show("caf\xc3\xa9 \xe2\x82\xac"),
			    "caf\xc3\xa9 \xe2\x82\xac");
	assert_string_equal(show(""), "");
}

static void printable_escapes_controls(void **state)
{
	(void)state;
	/* an escape sequence that would clear the screen */
	assert_string_equal(show("x\x1b[2J"), "x\\x1b[2J");
	assert_string_equal(show("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
	/* C1 CSI, which some terminals take as ESC [ */
	assert_string_equal(show("\xc2\x9b" "31m"), "\\xc2\\x9b31m");
	/* a backslash, so an escape is never ambiguous */
	assert_string_equal(show("a\\x41"), "a\\\\x41");
}

static void printable_escapes_invalid_utf8(void **state)
{
	(void)state;
	assert_string_equal(show("\xff\xfe"), "\\xff\\xfe");
	/* overlong '/', a surrogate, past U+10FFFF, a stray continuation */
	assert_string_equal(show("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(show("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(show("\xf4\x90\x80\x80"),
			    "\\xf4\\x90\\x80\\x80");
	assert_string_equal(show("\x80z"), "\\x80z");
	/* cut short by the NUL */
	assert_string_equal(show("ok\xe2\x82"), "ok\\xe2\\x82");
}

static void printable_never_cuts_an_escape(void **state)
{
	char small[8];

	(void)state;
	/* "ab" fits, "\x1b" (4) does not after it with the NUL */
	assert_string_equal(printable(small, 6, "ab\x1b"), "ab");
	assert_string_equal(printable(small, 7, "ab\x1b"), "ab\\x1b");
	/* a UTF-8 character is whole or absent */
	assert_string_equal(printable(small, 4, "ab\xc3\xa9"), "ab");
	/* the worst case fits PRINTABLE_LEN exactly */
	{
		char buf[PRINTABLE_LEN(3)];

		assert_string_equal(printable(buf, sizeof(buf), "\x01\x02\x03"),
				    "\\x01\\x02\\x03");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(printable_keeps_text),
		cmocka_unit_test(printable_escapes_controls),
		cmocka_unit_test(printable_escapes_invalid_utf8),
		cmocka_unit_test(printable_never_cuts_an_escape),
	};

	return cmocka_run_group_tests_name("printable", tests, NULL, NULL);
}
