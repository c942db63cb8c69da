// SPDX-License-Identifier: GPL-2.0-only
/*
 * A port's enabled width and speed through libibumad (verbs_int.h
 * verbs_umad_enabled()): the directed-route SubnGet(PortInfo) of
 * lib/portinfo.h to the local port, sent and answered through rdma-core's
 * libibumad.so.3, opened at run time so that qperf needs it only for this
 * check.  Every failure (no library, no umad device, no permission: the
 * kernel's /dev/infiniband/umad* are root's unless the admin says
 * otherwise, no answer within 200 ms) leaves the facts unknown; nothing
 * is printed.  The last answer (or failure) is kept for its device and
 * port, so a process asks a port once while it is the one used.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/facts.h"
#include "lib/portinfo.h"
#include "verbs_int.h"

#define UMAD_LIB "libibumad.so.3"
#define UMAD_WAIT_MS 200

/* The libibumad calls used, as <infiniband/umad.h> declares them. */
struct umad_fns {
	int (*init)(void);
	int (*open_port)(const char *ca, int port);
	int (*close_port)(int portid);
	int (*reg)(int portid, int mgmt_class, int mgmt_version,
		   uint8_t rmpp_version, long *method_mask);
	void *(*get_mad)(void *umad);
	size_t (*size)(void);
	int (*status)(void *umad);
	int (*set_addr)(void *umad, int dlid, int dqp, int sl, int qkey);
	int (*send)(int portid, int agentid, void *umad, int length,
		    int timeout_ms, int retries);
	int (*recv)(int portid, void *umad, int *length, int timeout_ms);
};

/* Open libibumad and resolve every call; 0 or -1. */
static int umad_load(struct umad_fns *u)
{
	static const char *const name[] = {
		"umad_init", "umad_open_port", "umad_close_port",
		"umad_register", "umad_get_mad", "umad_size", "umad_status",
		"umad_set_addr", "umad_send", "umad_recv"
	};
	void **slot = (void **)u;
	void *dl = dlopen(UMAD_LIB, RTLD_NOW | RTLD_LOCAL);

	if (!dl)
		return -1;
	_Static_assert(sizeof(*u) == sizeof(name) / sizeof(name[0]) *
					    sizeof(void *),
		       "one name per call");
	for (size_t i = 0; i < sizeof(name) / sizeof(name[0]); i++) {
		slot[i] = dlsym(dl, name[i]);
		if (!slot[i]) {
			dlclose(dl);
			return -1;
		}
	}
	return u->init() < 0 ? -1 : 0;
}

/* One SubnGet(PortInfo) on an open port; 0 and *l, or -1. */
static int ask(const struct umad_fns *u, int portid, uint32_t port,
	       struct pi_link *l)
{
	size_t n = u->size() + PI_MAD_SIZE;
	uint8_t *buf = calloc(1, n);
	uint64_t tid = ((uint64_t)getpid() << 32) | 0x51504631u; /* "QPF1" */
	int agent, len = PI_MAD_SIZE, rc = -1;

	if (!buf)
		return -1;
	agent = u->reg(portid, PI_MGMT_CLASS_DR, 1, 0, NULL);
	if (agent < 0)
		goto out;
	pi_request(u->get_mad(buf), port, tid);
	u->set_addr(buf, 0xffff, 0, 0, 0); /* permissive LID, QP0 */
	if (u->send(portid, agent, buf, PI_MAD_SIZE, UMAD_WAIT_MS, 1) < 0)
		goto out;
	for (int tries = 0; tries < 4; tries++) {
		len = PI_MAD_SIZE;
		if (u->recv(portid, buf, &len, UMAD_WAIT_MS) < 0)
			break;
		if (u->status(buf) != 0)
			break; /* timed out: no answer */
		if (pi_decode(u->get_mad(buf), (size_t)len, tid, l) == 0) {
			rc = 0;
			break;
		}
	}
out:
	free(buf);
	return rc;
}

static pthread_mutex_t umad_mu = PTHREAD_MUTEX_INITIALIZER;

void verbs_umad_enabled(const char *dev, uint32_t port, uint32_t *width,
			uint32_t *speed)
{
	static struct umad_fns u;
	static int loaded; /* 0 not tried, 1 loaded, -1 missing */
	static char last_dev[FACTS_NAME];
	static uint32_t last_port;
	static struct pi_link last;
	struct pi_link l = { 0 };
	int portid;

	if (!dev[0] || !port)
		return;
	pthread_mutex_lock(&umad_mu);
	if (last_port == port && strcmp(last_dev, dev) == 0) {
		l = last;
		goto done;
	}
	if (!loaded)
		loaded = umad_load(&u) == 0 ? 1 : -1;
	if (loaded < 0)
		goto done;
	portid = u.open_port(dev, (int)port);
	if (portid >= 0) {
		if (ask(&u, portid, port, &l) < 0)
			memset(&l, 0, sizeof(l));
		u.close_port(portid);
	}
	snprintf(last_dev, sizeof(last_dev), "%s", dev);
	last_port = port;
	last = l;
done:
	pthread_mutex_unlock(&umad_mu);
	*width = l.width_enabled;
	*speed = l.speed_enabled;
}
