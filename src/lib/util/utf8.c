/* SPDX-License-Identifier: MIT */
#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char REPLACEMENT[] = "\xef\xbf\xbd"; /* U+FFFD */

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, min = 0x80, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, min = 0x800, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, min = 0x10000, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

uint32_t utf8_decode(const unsigned char *s, size_t len)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[len < 5 ? len : 1];

	for (size_t k = 1; k < len; k++)
		cp = cp << 6 | (s[k] & 0x3f);
	return cp;
}

bool unicode_noncharacter(uint32_t cp)
{
	return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0, k; i < n; i += k) {
		k = utf8_seq_len(p + i, n - i);
		if (!k)
			return false;
	}
	return true;
}

char *utf8_repair(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;

	if (n > (SIZE_MAX - 1) / 3)
		return NULL;
	out = malloc(n * 3 + 1);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len(p + i, n - i);

		if (k) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
		} else {
			memcpy(o, REPLACEMENT, 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	return out;
}
