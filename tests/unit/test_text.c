// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/text.h: the one rule for a peer's text (printable ASCII kept, every
 * other byte '?'), in place and as a bounded copy.
 */
#include "lib/text.h"
#include "harness.h"

TEST(the_rule)
{
	for (int c = 0; c < 256; c++)
		CHECK(text_ok((unsigned char)c) == (c >= 0x20 && c <= 0x7e));
}

TEST(clean_in_place)
{
	char s[] = "a\x1b[2Jb\xff\x9b\x7f\tc ~";
	char n[] = { 'x', '\0', 'y' };

	CHECK_STR(text_clean(s), "a?[2Jb????c ~");
	text_clean_n(n, sizeof(n));
	CHECK(n[0] == 'x' && n[1] == '?' && n[2] == 'y');
}

TEST(bounded_copy)
{
	char b[6];

	CHECK_STR(text_copy(b, sizeof(b), "h\x1bost-name"), "h?ost");
	CHECK_STR(text_copy(b, sizeof(b), NULL), "");
	CHECK_STR(text_copy(b, 1, "abc"), "");
}

int main(void)
{
	RUN(the_rule);
	RUN(clean_in_place);
	RUN(bounded_copy);
	return harness_done();
}
