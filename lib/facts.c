// SPDX-License-Identifier: GPL-2.0-only
/*
 * Path facts codec (lib/facts.h).  The value is a TLV block of its own
 * (lib/tlv.h), one item per field, encoded and decoded by one table, so
 * the two cannot drift.  NUMA nodes travel as node + 1 (0: none).
 */
#include <stddef.h>
#include <string.h>

#include "lib/facts.h"
#include "lib/tlv.h"
#include "lib/wire.h"

void facts_init(struct path_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->dev_numa = f->test_numa = -1;
}

static int numa_item(void *dst, const struct tlv_field *fl, uint16_t type,
		     const uint8_t *val, uint16_t len)
{
	uint32_t v;

	(void)type;
	if (!tlv_val_u32(val, len, &v) || v > FACTS_NUMA_MAX + 1u)
		return -1;
	*(int32_t *)((char *)dst + fl->off) = (int32_t)v - 1;
	return 0;
}

#define U(t, field, mx)                                                    \
	{ .type = (t), .kind = TLV_U32, .off = offsetof(struct path_facts, \
							field),            \
	  .size = sizeof(((struct path_facts *)0)->field), .max = (mx) }
#define S(t, field)                                                        \
	{ .type = (t), .kind = TLV_STR,                                    \
	  .flags = TLVF_TRUNC | TLVF_PRINT | TLVF_NONUL,                   \
	  .off = offsetof(struct path_facts, field),                       \
	  .size = sizeof(((struct path_facts *)0)->field) }
#define B(t, field)                                                        \
	{ .type = (t), .kind = TLV_FLAG,                                   \
	  .off = offsetof(struct path_facts, field), .size = sizeof(bool) }
#define N(t, field)                                                        \
	{ .type = (t), .kind = TLV_FN, .fn = numa_item,                    \
	  .off = offsetof(struct path_facts, field), .size = sizeof(int32_t) }

static const struct tlv_field facts_tab[] = {
	U(1, kind, FACTS_SOCK),
	S(2, dev),
	U(3, port, 255),
	U(4, link_layer, FACTS_LL_ETH),
	U(5, speed, 256),
	U(6, width, 32),
	U(7, active_mtu, 65536),
	U(8, max_mtu, 65536),
	U(9, path_mtu, 65536),
	U(10, roce, FACTS_ROCE_V2),
	B(11, ip6),
	B(12, loopback),
	S(13, pci),
	U(14, pcie_gen, 16),
	U(15, pcie_width, 32),
	U(16, pcie_max_gen, 16),
	U(17, pcie_max_width, 32),
	N(18, dev_numa),
	N(19, test_numa),
	S(20, governor),
	S(21, netdev),
	U(22, net_speed, 100000000),
	U(23, net_mtu, 1u << 20),
	U(24, pkt_extra, 64),
	B(25, virt),
	U(26, net_speed_max, 100000000),
	U(27, width_enabled, 32),
	U(28, speed_enabled, 1024),
};
#define NTAB (sizeof(facts_tab) / sizeof(facts_tab[0]))

size_t facts_encode(const struct path_facts *f, uint8_t *out, size_t cap)
{
	const char *base = (const char *)f;
	struct tlv_w w;

	tlv_init(&w, out, cap);
	for (size_t i = 0; i < NTAB; i++) {
		const struct tlv_field *r = &facts_tab[i];
		const char *p = base + r->off;

		switch (r->kind) {
		case TLV_U32: {
			uint32_t v;

			memcpy(&v, p, sizeof(v));
			if (v)
				tlv_u32(&w, r->type, v);
			break;
		}
		case TLV_STR:
			if (*p)
				tlv_bytes(&w, r->type, p,
					  (uint16_t)strnlen(p, r->size - 1));
			break;
		case TLV_FLAG:
			if (*(const bool *)p)
				tlv_bytes(&w, r->type, NULL, 0);
			break;
		default: { /* a NUMA node */
			int32_t v;

			memcpy(&v, p, sizeof(v));
			if (v >= 0 && v <= FACTS_NUMA_MAX)
				tlv_u32(&w, r->type, (uint32_t)v + 1);
			break;
		}
		}
	}
	return tlv_finish(&w);
}

int facts_decode(const uint8_t *in, size_t len, struct path_facts *f)
{
	facts_init(f);
	if (len < TLV_HDR || tlv_header(in) != len ||
	    tlv_decode(in, len, facts_tab, NTAB, f, NULL) != 0) {
		facts_init(f);
		return -1;
	}
	return 0;
}
