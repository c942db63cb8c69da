// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this machine is and how busy it is: /proc/stat sampling for the CPU
 * accounting of spec §6, getrusage for the test process's own CPU, the CPU count and tick rate of STAT, and the four
 * strings of the conf test (spec §2.6, §5.9).
 *
 * The parsers (cpu_parse_stat, conf_cpu_string) are pure functions of the
 * text they are given so that they can be tested on captured files; the
 * other functions only read /proc and uname.  Every string written here is
 * zero-filled to its full size: CONF is sent raw, and 0.4.11 leaked stack
 * bytes after the NULs (spec §7.4, bug 28).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "output/report.h"

/* 0.4.11 reads at most this much of /proc/stat; the first line is short. */
#define CPU_STAT_MAX 1024
/* /proc/cpuinfo of a very large machine stays well below this. */
#define CPU_INFO_MAX (8u << 20)

static void cpu_err(char *err, size_t errlen, const char *msg,
		    const char *detail)
{
	if (!err || errlen == 0)
		return;
	if (detail)
		snprintf(err, errlen, "%s: %s", msg, detail);
	else
		snprintf(err, errlen, "%s", msg);
}

int cpu_parse_stat(const char *text, uint64_t t[CPU_COUNT], char *err,
		   size_t errlen)
{
	const char *p;

	memset(t, 0, CPU_COUNT * sizeof(t[0]));
	if (!text || strncmp(text, "cpu ", 4) != 0) {
		cpu_err(err, errlen, "/proc/stat does not start with 'cpu '",
			NULL);
		return -1;
	}
	p = text + 3;
	for (int i = CPU_USER; i < CPU_COUNT; i++) {
		char *end;

		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p)) {
			/* Kernels before 2.6.11 have no steal field. */
			if (i == CPU_STEAL && (*p == '\n' || *p == '\0'))
				break;
			goto bad;
		}
		errno = 0;
		t[i] = strtoull(p, &end, 10);
		if (errno == ERANGE)
			goto bad;
		p = end;
		if (*p != ' ' && *p != '\n' && *p != '\0')
			goto bad;
	}
	return 0;
bad:
	memset(t, 0, CPU_COUNT * sizeof(t[0]));
	cpu_err(err, errlen, "/proc/stat has bad format", NULL);
	return -1;
}

int cpu_sample(uint64_t t[CPU_COUNT], char *err, size_t errlen)
{
	char buf[CPU_STAT_MAX];
	size_t n = 0;
	int fd;

	fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		memset(t, 0, CPU_COUNT * sizeof(t[0]));
		cpu_err(err, errlen, "cannot open /proc/stat", strerror(errno));
		return -1;
	}
	while (n < sizeof(buf) - 1) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			close(fd);
			memset(t, 0, CPU_COUNT * sizeof(t[0]));
			cpu_err(err, errlen, "cannot read /proc/stat",
				strerror(e));
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (memchr(buf, '\n', n))
			break; /* the first line is all we need */
	}
	close(fd);
	buf[n] = '\0';
	return cpu_parse_stat(buf, t, err, errlen);
}

bool cpu_proc_sample(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return false;
	*user = (uint64_t)ru.ru_utime.tv_sec * NS_PER_SEC +
		(uint64_t)ru.ru_utime.tv_usec * 1000;
	*sys = (uint64_t)ru.ru_stime.tv_sec * NS_PER_SEC +
	       (uint64_t)ru.ru_stime.tv_usec * 1000;
	return true;
}

uint32_t cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

uint32_t cpu_ticks(void)
{
	long n = sysconf(_SC_CLK_TCK);

	if (n < 1)
		return 100;
	return n > (long)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* ---------------------------------------------------------------------- */
/* The cpu string of CONF (spec §5.9)                                      */
/* ---------------------------------------------------------------------- */

/* A line of the text, without its newline. */
struct cpu_line {
	const char *p;
	size_t n;
};

/* Advance *pos to the next line; false at the end of the text. */
static bool cpu_next_line(const char **pos, struct cpu_line *l)
{
	const char *s = *pos, *nl;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	l->p = s;
	l->n = nl ? (size_t)(nl - s) : strlen(s);
	*pos = nl ? nl + 1 : s + l->n;
	return true;
}

/* Case-insensitive: does the n bytes at p start with pre? */
static bool cpu_has_prefix(const char *p, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && strncasecmp(p, pre, k) == 0;
}

static bool cpu_line_eq(struct cpu_line a, struct cpu_line b)
{
	return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* Is the line "key<spaces or tabs>:value", key compared ignoring case? */
static bool cpu_key_is(struct cpu_line l, const char *key)
{
	const char *colon = memchr(l.p, ':', l.n);
	size_t k;

	if (!colon)
		return false;
	k = (size_t)(colon - l.p);
	while (k > 0 && (l.p[k - 1] == ' ' || l.p[k - 1] == '\t'))
		k--;
	return k == strlen(key) && strncasecmp(l.p, key, k) == 0;
}

/* The text after the first ':' and any blanks (0.4.11 skip_colon). */
static struct cpu_line cpu_value(struct cpu_line l)
{
	const char *colon = memchr(l.p, ':', l.n);
	struct cpu_line v = { l.p + l.n, 0 };

	if (!colon)
		return v;
	v.p = colon + 1;
	v.n = l.n - (size_t)(v.p - l.p);
	while (v.n > 0 && (*v.p == ' ' || *v.p == '\t')) {
		v.p++;
		v.n--;
	}
	return v;
}

/* A bounded string builder; out is always NUL-terminated. */
struct cpu_sbuf {
	char *buf;
	size_t len, n;
};

static void cpu_putn(struct cpu_sbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i] && sb->n + 1 < sb->len; i++)
		sb->buf[sb->n++] = s[i];
	sb->buf[sb->n] = '\0';
}

static void cpu_puts(struct cpu_sbuf *sb, const char *s)
{
	cpu_putn(sb, s, strlen(s));
}

/*
 * Copy a model name, dropping "(r)", "(tm)", "cpu " and "processor "
 * (case-insensitively, as 0.4.11 does, wherever they occur) and
 * collapsing runs of spaces.
 */
static void cpu_clean_name(struct cpu_line v, struct cpu_sbuf *sb)
{
	static const char *const drop[] = { "(r)", "(tm)", "cpu ",
					     "processor " };
	size_t i = 0;

	while (i < v.n) {
		bool dropped = false;

		for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]); d++) {
			if (cpu_has_prefix(v.p + i, v.n - i, drop[d])) {
				i += strlen(drop[d]);
				dropped = true;
				break;
			}
		}
		if (dropped)
			continue;
		if (v.p[i] == ' ' && i + 1 < v.n && v.p[i + 1] == ' ') {
			i++;
			continue;
		}
		cpu_putn(sb, v.p + i, 1);
		i++;
	}
}

/*
 * The first line with the given key, how many there are and whether any
 * differs from the first.  Returns false if there is none.
 */
static bool cpu_find_key(const char *text, const char *key,
			 struct cpu_line *first, unsigned *count, bool *mixed)
{
	const char *pos = text;
	struct cpu_line l;
	unsigned n = 0;

	*mixed = false;
	while (cpu_next_line(&pos, &l)) {
		if (!cpu_key_is(l, key))
			continue;
		if (n++ == 0)
			*first = l;
		else if (!cpu_line_eq(*first, l))
			*mixed = true;
	}
	if (count)
		*count = n;
	return n > 0;
}

/* The number at the start of a line's value, in base (0: C rules). */
static unsigned long cpu_value_num(struct cpu_line l, int base)
{
	struct cpu_line v = cpu_value(l);
	char tmp[32];
	size_t n = v.n < sizeof(tmp) - 1 ? v.n : sizeof(tmp) - 1;

	memcpy(tmp, v.p, n);
	tmp[n] = '\0';
	return strtoul(tmp, NULL, base);
}

static const struct {
	unsigned long id;
	const char *name;
} CPU_ARM_IMPLEMENTERS[] = {
	{ 0x41, "ARM" },      { 0x42, "Broadcom" }, { 0x43, "Cavium" },
	{ 0x46, "Fujitsu" },  { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
	{ 0x50, "APM" },      { 0x51, "Qualcomm" }, { 0x53, "Samsung" },
	{ 0x56, "Marvell" },  { 0x61, "Apple" },    { 0x69, "Intel" },
	{ 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

static const struct {
	unsigned long part;
	const char *name;
} CPU_ARM_PARTS[] = {
	{ 0xd03, "Cortex-A53" },  { 0xd04, "Cortex-A35" },
	{ 0xd05, "Cortex-A55" },  { 0xd07, "Cortex-A57" },
	{ 0xd08, "Cortex-A72" },  { 0xd09, "Cortex-A73" },
	{ 0xd0a, "Cortex-A75" },  { 0xd0b, "Cortex-A76" },
	{ 0xd0c, "Neoverse-N1" }, { 0xd0d, "Cortex-A77" },
	{ 0xd40, "Neoverse-V1" }, { 0xd41, "Cortex-A78" },
	{ 0xd49, "Neoverse-N2" }, { 0xd4f, "Neoverse-V2" },
	{ 0xd8e, "Neoverse-N3" },
};

/* arm64: "<implementer> <part>" from the CPU implementer/part lines. */
static bool cpu_arm_name(const char *text, struct cpu_sbuf *sb, bool *mixed)
{
	struct cpu_line impl, part = { NULL, 0 };
	bool mixed_impl, mixed_part = false;
	unsigned long id, pn;
	const char *iname = NULL, *pname = NULL;
	char tmp[48];

	if (!cpu_find_key(text, "CPU implementer", &impl, NULL, &mixed_impl))
		return false;
	cpu_find_key(text, "CPU part", &part, NULL, &mixed_part);
	*mixed = mixed_impl || mixed_part;
	if (*mixed)
		return true;
	id = cpu_value_num(impl, 0);
	pn = part.n ? cpu_value_num(part, 0) : 0;
	for (size_t i = 0; i < sizeof(CPU_ARM_IMPLEMENTERS) /
				       sizeof(CPU_ARM_IMPLEMENTERS[0]);
	     i++)
		if (CPU_ARM_IMPLEMENTERS[i].id == id)
			iname = CPU_ARM_IMPLEMENTERS[i].name;
	if (id == 0x41)
		for (size_t i = 0;
		     i < sizeof(CPU_ARM_PARTS) / sizeof(CPU_ARM_PARTS[0]); i++)
			if (CPU_ARM_PARTS[i].part == pn)
				pname = CPU_ARM_PARTS[i].name;
	if (iname) {
		cpu_puts(sb, iname);
	} else {
		snprintf(tmp, sizeof(tmp), "implementer 0x%lx", id);
		cpu_puts(sb, tmp);
	}
	if (pname) {
		cpu_puts(sb, " ");
		cpu_puts(sb, pname);
	} else if (part.n) {
		snprintf(tmp, sizeof(tmp), " part 0x%lx", pn);
		cpu_puts(sb, tmp);
	}
	return true;
}

/*
 * No "model name" line (0.4.11 bug 28 left the string unset): try the
 * lines other architectures use.  Returns the CPU count it found.
 */
static unsigned cpu_fallback(const char *text, struct cpu_sbuf *sb,
			     bool *mixed)
{
	/* ppc64 "cpu", riscv "uarch"/"isa", arm32 "Hardware", s390 vendor. */
	static const char *const keys[] = { "cpu", "uarch" };
	static const char *const late_keys[] = { "Hardware", "isa",
						 "vendor_id" };
	struct cpu_line l;
	unsigned count = 0;
	bool dummy;

	cpu_find_key(text, "processor", &l, &count, &dummy);
	if (count == 0 && cpu_find_key(text, "# processors", &l, NULL, &dummy))
		count = (unsigned)cpu_value_num(l, 10);

	*mixed = false;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (cpu_find_key(text, keys[i], &l, NULL, mixed)) {
			cpu_clean_name(cpu_value(l), sb);
			return count;
		}
	}
	if (cpu_arm_name(text, sb, mixed))
		return count;
	for (size_t i = 0; i < sizeof(late_keys) / sizeof(late_keys[0]); i++) {
		if (cpu_find_key(text, late_keys[i], &l, NULL, mixed)) {
			cpu_clean_name(cpu_value(l), sb);
			return count;
		}
	}
	*mixed = false;
	return count;
}

void conf_cpu_string(const char *cpuinfo, char out[64])
{
	const char *pos = cpuinfo ? cpuinfo : "";
	struct cpu_line l, name = { NULL, 0 }, mhz = { NULL, 0 };
	unsigned count = 0;
	bool mixed = false;
	char nbuf[256], tmp[32];
	struct cpu_sbuf nb = { nbuf, sizeof(nbuf), 0 };
	struct cpu_sbuf ob = { out, 64, 0 };

	memset(out, 0, 64);
	nbuf[0] = '\0';

	/* The x86 rules of 0.4.11: whole lines compared for "mixed". */
	while (cpu_next_line(&pos, &l)) {
		if (cpu_has_prefix(l.p, l.n, "model name")) {
			count++;
			if (mixed)
				continue;
			if (!name.p)
				name = l;
			else if (!cpu_line_eq(name, l))
				mixed = true;
		} else if (cpu_has_prefix(l.p, l.n, "cpu MHz")) {
			/*
			 * 0.4.11 calls CPUs whose current clock differs
			 * "Mixed"; with frequency scaling that is nearly every
			 * machine, so only the model name decides here and
			 * the first core's clock is shown.
			 */
			if (!mhz.p)
				mhz = l;
		}
	}
	if (count == 0)
		count = cpu_fallback(cpuinfo ? cpuinfo : "", &nb, &mixed);
	else if (!mixed)
		cpu_clean_name(cpu_value(name), &nb);

	if (mixed) {
		nb.n = 0;
		cpu_puts(&nb, "Mixed CPUs");
	} else if (nb.n == 0) {
		cpu_puts(&nb, "unknown");
	} else if (mhz.p && (nb.n < 3 || strcmp(nbuf + nb.n - 2, "Hz"))) {
		long freq = (long)cpu_value_num(mhz, 10);

		/* cpu_value_num stops at the '.', like atoi. */
		if (freq > 0 && freq < 1000)
			snprintf(tmp, sizeof(tmp), " %ldMHz", freq);
		else if (freq >= 1000)
			snprintf(tmp, sizeof(tmp), " %.1fGHz", freq / 1000.0);
		else
			tmp[0] = '\0';
		cpu_puts(&nb, tmp);
	}

	if (count != 1 && count != 0) {
		snprintf(tmp, sizeof(tmp), "%u Cores: ", count);
		cpu_puts(&ob, tmp);
	}
	cpu_puts(&ob, nbuf);
}

/* Read a whole (small) file into a NUL-terminated heap buffer, or NULL. */
static char *cpu_read_file(const char *path, size_t max)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap);
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nbuf;

			if (cap >= max)
				break; /* keep what fits */
			nbuf = realloc(buf, cap * 2);
			if (!nbuf)
				break;
			buf = nbuf;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

void conf_local(struct conf_info *c)
{
	struct utsname u;
	struct cpu_sbuf sb;
	char *info;

	memset(c, 0, sizeof(*c));
	if (uname(&u) == 0) {
		sb = (struct cpu_sbuf){ c->node, sizeof(c->node), 0 };
		cpu_puts(&sb, u.nodename);
		sb = (struct cpu_sbuf){ c->os, sizeof(c->os), 0 };
		cpu_puts(&sb, u.sysname);
		cpu_puts(&sb, " ");
		cpu_puts(&sb, u.release);
	}
	sb = (struct cpu_sbuf){ c->qperf, sizeof(c->qperf), 0 };
	cpu_puts(&sb, QPERF_VERSION);

	info = cpu_read_file("/proc/cpuinfo", CPU_INFO_MAX);
	conf_cpu_string(info ? info : "", c->cpu);
	free(info);
}
