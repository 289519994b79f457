// SPDX-License-Identifier: GPL-2.0
#include "printable.h"

#include <stdio.h>
#include <string.h>

size_t utf8_sequence(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t v;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		v = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		v = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		v = s[0] & 0x07;
	} else {
		return 0;	/* continuation byte, 0xc0/0xc1, 0xf5.. */
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* the NUL ends it here too */
		v = v << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogate, beyond Unicode */
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) ||
	    (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return n;
}

const char *printable(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return buf;
	while (*p) {
		uint32_t cp = 0;
		size_t n = utf8_sequence(p, &cp), i, need;

		if (n && !is_control(cp) && cp != '\\') {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
			p += n;
			continue;
		}
		if (cp == '\\' && n == 1) {
			if (o + 2 >= len)
				break;
			buf[o++] = '\\';
			buf[o++] = '\\';
			p++;
			continue;
		}
		/* a control character's bytes, or one invalid byte */
		if (!n)
			n = 1;
		need = 4 * n;
		if (o + need >= len)
			break;
		for (i = 0; i < n; i++, o += 4)
			snprintf(buf + o, 5, "\\x%02x", p[i]);
		p += n;
	}
	buf[o] = '\0';
	return buf;
}
