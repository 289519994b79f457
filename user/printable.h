/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names other users choose (a command name is whatever prctl() or
 * exec set) reach terminals, logs and JSON: what is not printable
 * UTF-8 must arrive as an escape, never as a control sequence.
 */
#ifndef IPCWATCH_PRINTABLE_H
#define IPCWATCH_PRINTABLE_H

#include <stddef.h>
#include <stdint.h>

/* Room for printable() of a string of @n bytes (each may become \xNN). */
#define PRINTABLE_LEN(n) ((n) * 4 + 1)

/*
 * @s with every byte that is a control character (C0, DEL, C1) or not
 * part of valid UTF-8 written as \xNN, and a backslash as \\, into
 * @buf; cut short, never mid-escape, when @len is too small.
 */
const char *printable(char *buf, size_t len, const char *s);

/*
 * The length (1-4) of the valid UTF-8 sequence at @s, its code point in
 * @cp; 0 when @s does not start one (a stray continuation byte, an
 * overlong form, a surrogate, past U+10FFFF, or cut short by the NUL).
 */
size_t utf8_sequence(const unsigned char *s, uint32_t *cp);

/* C0 controls, DEL and the C1 controls U+0080..U+009F. */
static inline int is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

#endif
