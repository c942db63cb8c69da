// SPDX-License-Identifier: GPL-2.0-only
/* Rank, size and rendezvous address for cluster mode (see rank_env.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_env.h"
#include "lib/err.h"

struct rank_source {
	const char *name, *rank, *size, *local;
};

static const struct rank_source sources[] = {
	{ "QPERF", "QPERF_RANK", "QPERF_SIZE", "QPERF_LOCAL_RANK" },
	{ "OMPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	  "OMPI_COMM_WORLD_LOCAL_RANK" },
	{ "SLURM", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID" },
	{ "PMIX", "PMIX_RANK", "QPERF_SIZE", "QPERF_LOCAL_RANK" },
};

/* A decimal number in [lo, hi] from variable name; -1 with err if bad. */
static int env_u32(env_lookup get, const char *name, uint32_t lo,
		   uint32_t hi, uint32_t *out, char *err, size_t errlen)
{
	const char *v = get(name);
	char *end;
	unsigned long long x;

	if (!v || !*v || *v < '0' || *v > '9')
		return seterr(err, errlen, "%s=%s: not a number", name,
			      v ? v : "");
	errno = 0;
	x = strtoull(v, &end, 10);
	if (*end || errno || x < lo || x > hi)
		return seterr(err, errlen, "%s=%s: must be %u to %u", name,
			      v, lo, hi);
	*out = (uint32_t)x;
	return 0;
}

int rank_from_env(env_lookup get, struct rank_info *ri, char *err,
		  size_t errlen)
{
	memset(ri, 0, sizeof(*ri));
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		const struct rank_source *s = &sources[i];
		bool pmix = !strcmp(s->name, "PMIX");

		if (!get(s->rank))
			continue;
		ri->source = s->name;
		ri->size_known = !pmix || get(s->size) != NULL;
		if (ri->size_known &&
		    env_u32(get, s->size, 2, 1000000, &ri->size, err,
			    errlen) < 0)
			return -1;
		if (env_u32(get, s->rank, 0, 999999, &ri->rank, err,
			    errlen) < 0)
			return -1;
		if (ri->size_known && ri->rank >= ri->size)
			return seterr(err, errlen,
				      "%s=%u: must be below %s=%u", s->rank,
				      ri->rank, s->size, ri->size);
		if (get(s->local) &&
		    env_u32(get, s->local, 0, 65535, &ri->local_rank, err,
			    errlen) < 0)
			return -1;
		return 0;
	}
	return 1;
}

int parse_rendezvous(const char *s, uint16_t dflt, char *host,
		     size_t hostlen, uint16_t *port, char *err,
		     size_t errlen)
{
	const char *h = s, *p = NULL;
	size_t hl;

	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close == s + 1 ||
		    (close[1] && close[1] != ':'))
			return seterr(err, errlen,
				      "bad rendezvous address %s (use HOST:PORT or [IPV6]:PORT)",
				      s);
		h = s + 1;
		hl = (size_t)(close - h);
		if (close[1] == ':')
			p = close + 2;
	} else {
		const char *colon = strrchr(s, ':');

		if (colon && strchr(s, ':') != colon)
			return seterr(err, errlen,
				      "bad rendezvous address %s (write an IPv6 address as [ADDR]:PORT)",
				      s);
		hl = colon ? (size_t)(colon - s) : strlen(s);
		if (colon)
			p = colon + 1;
	}
	if (hl == 0 || hl >= hostlen)
		return seterr(err, errlen,
			      "bad rendezvous address %s (use HOST:PORT or [IPV6]:PORT)",
			      s);
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = dflt;
	if (p) {
		char *end;
		unsigned long v;

		errno = 0;
		v = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
		if (!(*p >= '0' && *p <= '9') || *end || errno || v < 1 ||
		    v > 65535)
			return seterr(err, errlen,
				      "bad rendezvous port in %s (1 to 65535)",
				      s);
		*port = (uint16_t)v;
	}
	return 0;
}

bool pmix_env_present(env_lookup get)
{
	/* PMIx 2 to 4 servers set one or more of these URIs. */
	static const char *const vars[] = {
		"PMIX_NAMESPACE", "PMIX_RANK", "PMIX_SERVER_URI",
		"PMIX_SERVER_URI2", "PMIX_SERVER_URI21", "PMIX_SERVER_URI3",
		"PMIX_SERVER_URI4", "PMIX_SERVER_URI41",
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (get(vars[i]))
			return true;
	return false;
}

int rendezvous_format(const char *host, uint16_t port, char *out,
		      size_t len)
{
	bool v6 = strchr(host, ':') != NULL;
	int n = snprintf(out, len, v6 ? "[%s]:%u" : "%s:%u", host, port);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}
