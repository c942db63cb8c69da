// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * portq: print port 1 of the first device as a program built against
 * rdma-core v48 or later sees it, with active_speed_ex (the field that
 * alone can say XDR), which the installed headers may not have.
 *
 *   portq   ->   speed=128,speed_ex=256,width=2,mtu=5,max_mtu=5,flags2=0x420
 */
#include <stddef.h>
#include <stdio.h>
#include <infiniband/verbs.h>

/* ibv_port_attr of rdma-core v48+: active_speed_ex after port_cap_flags2 */
struct port_attr_ex {
	struct ibv_port_attr a;
	uint32_t active_speed_ex;
};

int main(void)
{
	struct ibv_device **l;
	struct ibv_context *c;
	struct verbs_context *v;
	struct port_attr_ex p = { 0 };
	size_t off = (offsetof(struct ibv_port_attr, port_cap_flags2) + 2 + 3) &
		     ~(size_t)3;
	uint32_t ex;
	int n = 0;

	l = ibv_get_device_list(&n);
	if (!l || n < 1) {
		fprintf(stderr, "portq: no device\n");
		return 1;
	}
	c = ibv_open_device(l[0]);
	v = c ? verbs_get_ctx(c) : NULL;
	if (!v || !v->query_port ||
	    v->query_port(c, 1, &p.a, off + sizeof(ex))) {
		fprintf(stderr, "portq: query_port failed\n");
		return 1;
	}
	ex = *(uint32_t *)((char *)&p + off);
	printf("speed=%u,speed_ex=%u,width=%u,mtu=%d,max_mtu=%d,flags2=0x%x\n",
	       p.a.active_speed, ex, p.a.active_width, p.a.active_mtu,
	       p.a.max_mtu, p.a.port_cap_flags2);
	ibv_close_device(c);
	ibv_free_device_list(l);
	return 0;
}
