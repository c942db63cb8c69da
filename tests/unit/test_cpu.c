// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/cpu.c: the /proc/stat line parser (spec §6), live
 * sampling, and the conf strings (spec §2.6, §5.9), including the
 * architectures without a "model name" line that 0.4.11 got wrong (bug 28).
 */
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "output/report.h"
#include "harness.h"

/* ------------------------------------------------------------------ */
/* /proc/stat                                                          */
/* ------------------------------------------------------------------ */

TEST(stat_parse_full)
{
	uint64_t t[CPU_COUNT];
	char err[128] = "";

	CHECK(cpu_parse_stat("cpu  4121 7 4903 58702 366 12 1468 95 3 4\n"
			     "cpu0 1 2 3 4 5 6 7 8 9 10\n",
			     t, err, sizeof(err)) == 0);
	CHECK(t[CPU_REAL] == 0);
	CHECK(t[CPU_USER] == 4121);
	CHECK(t[CPU_NICE] == 7);
	CHECK(t[CPU_KERNEL] == 4903);
	CHECK(t[CPU_IDLE] == 58702);
	CHECK(t[CPU_IOWAIT] == 366);
	CHECK(t[CPU_IRQ] == 12);
	CHECK(t[CPU_SOFTIRQ] == 1468);
	CHECK(t[CPU_STEAL] == 95);
	CHECK_STR(err, "");

	/* Exactly eight fields, no newline; 64-bit values. */
	CHECK(cpu_parse_stat("cpu 1 2 3 4 5 6 7 18446744073709551615", t, err,
			     sizeof(err)) == 0);
	CHECK(t[CPU_STEAL] == UINT64_MAX);
}

TEST(stat_parse_no_steal)
{
	uint64_t t[CPU_COUNT];
	char err[128];

	t[CPU_STEAL] = 99;
	CHECK(cpu_parse_stat("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n", t, err,
			     sizeof(err)) == 0);
	CHECK(t[CPU_SOFTIRQ] == 7);
	CHECK(t[CPU_STEAL] == 0);
	CHECK(cpu_parse_stat("cpu  1 2 3 4 5 6 7", t, err, sizeof(err)) == 0);
}

TEST(stat_parse_errors)
{
	static const char *const bad_format[] = {
		"cpu  1 2 3 4 5 6\n", /* softirq missing */
		"cpu \n",
		"cpu  1 2 x 4 5 6 7 8\n",
		"cpu  1 2 3a 4 5 6 7 8\n",
		"cpu  1 2 3 4 5 6 7 -8\n",
		"cpu  1 2 3 4 5 6 7 99999999999999999999999\n",
		"cpu  1\t2 3 4 5 6 7 8\n",
	};
	static const char *const bad_start[] = {
		"", "cpu0 1 2 3 4 5 6 7 8\n", "intr 1 2 3\n", "CPU  1 2 3 4 5 6 7\n",
		" cpu 1 2 3 4 5 6 7 8\n",
	};
	uint64_t t[CPU_COUNT];
	char err[128];

	for (size_t i = 0; i < sizeof(bad_format) / sizeof(bad_format[0]);
	     i++) {
		err[0] = '\0';
		memset(t, 0xff, sizeof(t));
		CHECK(cpu_parse_stat(bad_format[i], t, err, sizeof(err)) == -1);
		CHECK_STR(err, "/proc/stat has bad format");
		CHECK(t[CPU_USER] == 0 && t[CPU_STEAL] == 0);
	}
	for (size_t i = 0; i < sizeof(bad_start) / sizeof(bad_start[0]); i++) {
		err[0] = '\0';
		CHECK(cpu_parse_stat(bad_start[i], t, err, sizeof(err)) == -1);
		CHECK_STR(err, "/proc/stat does not start with 'cpu '");
	}
	/* No error buffer, a tiny one, or no text at all. */
	CHECK(cpu_parse_stat("cpu 1\n", t, NULL, 0) == -1);
	CHECK(cpu_parse_stat("cpu 1\n", t, err, 5) == -1);
	CHECK_STR(err, "/pro");
	CHECK(cpu_parse_stat(NULL, t, err, sizeof(err)) == -1);
}

TEST(stat_sample_live)
{
	uint64_t a[CPU_COUNT], b[CPU_COUNT];
	char err[128] = "";
	uint64_t sum = 0;

	CHECK(cpu_sample(a, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	for (int i = CPU_USER; i < CPU_COUNT; i++)
		sum += a[i];
	CHECK(sum > 0);
	CHECK(a[CPU_REAL] == 0);
	for (volatile long i = 0; i < 20000000; i++)
		;
	CHECK(cpu_sample(b, err, sizeof(err)) == 0);
	for (int i = CPU_USER; i < CPU_COUNT; i++)
		CHECK(b[i] >= a[i]);
}

TEST(count_and_ticks)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	long hz = sysconf(_SC_CLK_TCK);

	CHECK(cpu_count() >= 1);
	if (n > 0)
		CHECK(cpu_count() == (uint32_t)n);
	CHECK(cpu_ticks() >= 1);
	if (hz > 0)
		CHECK(cpu_ticks() == (uint32_t)hz);
}

/* ------------------------------------------------------------------ */
/* conf strings                                                        */
/* ------------------------------------------------------------------ */

/* conf_cpu_string into a buffer full of junk; checks the zero tail. */
static const char *cpu_str(const char *info)
{
	static char out[64];
	size_t n;

	memset(out, 0xa5, sizeof(out));
	conf_cpu_string(info, out);
	n = strnlen(out, sizeof(out));
	CHECK(n < sizeof(out));
	for (size_t i = n; i < sizeof(out); i++)
		CHECK(out[i] == '\0');
	return out;
}

#define X86_CPU(model, mhz)                                              \
	"processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"   \
	"model\t\t: 85\nmodel name\t: " model "\nstepping\t: 7\n"        \
	"cpu MHz\t\t: " mhz "\ncache size\t: 36608 KB\n"                 \
	"flags\t\t: fpu vme de pse\n\n"

TEST(conf_cpu_spec_example)
{
	CHECK_STR(cpu_str(X86_CPU("Intel(R) Xeon(R) Processor", "2100.000")
				  X86_CPU("Intel(R) Xeon(R) Processor",
					  "2100.000")),
		  "2 Cores: Intel Xeon Processor 2.1GHz");
}

TEST(conf_cpu_x86_rules)
{
	/* One CPU: no count; a name ending in Hz gets no speed. */
	CHECK_STR(cpu_str(X86_CPU("Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz",
				  "2112.000")),
		  "Intel Core i7-8650U @ 1.90GHz");
	/* "cpu " and "processor " go, case-insensitively, wherever. */
	CHECK_STR(cpu_str(X86_CPU("QEMU Virtual CPU version 2.5+", "2495.312")),
		  "QEMU Virtual version 2.5+ 2.5GHz");
	CHECK_STR(cpu_str(X86_CPU("Some processor thing", "999.9")),
		  "Some thing 999MHz");
	CHECK_STR(cpu_str(X86_CPU("AMD EPYC 7763 64-Core Processor", "2445.406")
				  X86_CPU("AMD EPYC 7763 64-Core Processor",
					  "2445.406")
					  X86_CPU("AMD EPYC 7763 64-Core Processor",
						  "2445.406")),
		  "3 Cores: AMD EPYC 7763 64-Core Processor 2.4GHz");
	/* (r)/(tm) in any case; runs of spaces collapse. */
	CHECK_STR(cpu_str("MODEL NAME : Intel(r)  Xeon(tm)   Gold\n"
			  "CPU MHZ : 3000\n"),
		  "Intel Xeon Gold 3.0GHz");
	/* No cpu MHz line: no speed; no newline at the end. */
	CHECK_STR(cpu_str("model name\t: Plain Name"), "Plain Name");
}

TEST(conf_cpu_mixed)
{
	CHECK_STR(cpu_str(X86_CPU("Intel(R) Xeon(R) A", "2100.000")
				  X86_CPU("Intel(R) Xeon(R) B", "2100.000")),
		  "2 Cores: Mixed CPUs");
	/* Unlike 0.4.11, clock differences alone (scaling) are not "mixed". */
	CHECK_STR(cpu_str(X86_CPU("Intel(R) Xeon(R) A", "2100.000")
				  X86_CPU("Intel(R) Xeon(R) A", "1200.000")
					  X86_CPU("Intel(R) Xeon(R) A",
						  "2100.000")),
		  "3 Cores: Intel Xeon A 2.1GHz");
}

TEST(conf_cpu_truncated)
{
	const char *s = cpu_str(
		X86_CPU("A very long model name that goes on and on and on "
			"past sixty three characters", "1000")
			X86_CPU("A very long model name that goes on and on and "
				"on past sixty three characters",
				"1000"));

	CHECK(strlen(s) == 63);
	CHECK(strncmp(s, "2 Cores: A very long model name", 31) == 0);
}

#define ARM_CPU(n, impl, part)                                            \
	"processor\t: " #n "\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\n"  \
	"CPU implementer\t: " impl "\nCPU architecture: 8\n"              \
	"CPU variant\t: 0x3\nCPU part\t: " part "\nCPU revision\t: 1\n\n"

/* 0.4.11 bug 28: no "model name" line left the string uninitialised. */
TEST(conf_cpu_arm64)
{
	CHECK_STR(cpu_str(ARM_CPU(0, "0x41", "0xd0c") ARM_CPU(1, "0x41", "0xd0c")),
		  "2 Cores: ARM Neoverse-N1");
	CHECK_STR(cpu_str(ARM_CPU(0, "0x41", "0xd03")), "ARM Cortex-A53");
	CHECK_STR(cpu_str(ARM_CPU(0, "0x41", "0xd03") ARM_CPU(1, "0x41", "0xd03")
				  ARM_CPU(2, "0x41", "0xd09")
					  ARM_CPU(3, "0x41", "0xd09")),
		  "4 Cores: Mixed CPUs");
	CHECK_STR(cpu_str(ARM_CPU(0, "0xc0", "0xac3") ARM_CPU(1, "0xc0", "0xac3")),
		  "2 Cores: Ampere part 0xac3");
	CHECK_STR(cpu_str(ARM_CPU(0, "0x99", "0x1")),
		  "implementer 0x99 part 0x1");
	/* Older 32-bit kernels name the board. */
	CHECK_STR(cpu_str("processor\t: 0\nBogoMIPS\t: 38.40\n\n"
			  "Hardware\t: BCM2835\nRevision\t: a02082\n"),
		  "BCM2835");
}

TEST(conf_cpu_other_arches)
{
	CHECK_STR(cpu_str("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec "
			  "supported\nclock\t\t: 2200.000000MHz\n\n"
			  "processor\t: 1\ncpu\t\t: POWER9 (raw), altivec "
			  "supported\nclock\t\t: 2200.000000MHz\n\n"
			  "timebase\t: 512000000\n"),
		  "2 Cores: POWER9 (raw), altivec supported");
	CHECK_STR(cpu_str("processor\t: 0\nhart\t\t: 1\nisa\t\t: rv64imafdc\n"
			  "mmu\t\t: sv39\nuarch\t\t: sifive,u74-mc\n\n"
			  "processor\t: 1\nhart\t\t: 2\nisa\t\t: rv64imafdc\n"
			  "mmu\t\t: sv39\nuarch\t\t: sifive,u74-mc\n\n"),
		  "2 Cores: sifive,u74-mc");
	CHECK_STR(cpu_str("processor\t: 0\nhart\t\t: 1\nisa\t\t: rv64imafdc\n"),
		  "rv64imafdc");
	CHECK_STR(cpu_str("vendor_id       : IBM/S390\n# processors    : 4\n"
			  "bogomips per cpu: 3241.00\n"
			  "processor 0: version = FF,  identification = 0133E8\n"),
		  "4 Cores: IBM/S390");
}

TEST(conf_cpu_nothing)
{
	CHECK_STR(cpu_str(""), "unknown");
	CHECK_STR(cpu_str(NULL), "unknown");
	CHECK_STR(cpu_str("processor\t: 0\n\nprocessor\t: 1\n"),
		  "2 Cores: unknown");
	CHECK_STR(cpu_str("garbage without colons\n\n\n"), "unknown");
	CHECK_STR(cpu_str("model name\t:\n"), "unknown");
}

TEST(conf_local_fields)
{
	struct conf_info c;
	struct utsname u;
	const char *f[4];

	memset(&c, 0xa5, sizeof(c));
	conf_local(&c);
	f[0] = c.node;
	f[1] = c.cpu;
	f[2] = c.os;
	f[3] = c.qperf;
	for (int i = 0; i < 4; i++) {
		size_t n = strnlen(f[i], 64);

		CHECK(n < 64);
		for (size_t k = n; k < 64; k++)
			CHECK(f[i][k] == '\0');
	}
	CHECK_STR(c.qperf, QPERF_VERSION);
	CHECK(c.cpu[0] != '\0');
	CHECK(uname(&u) == 0);
	CHECK(strncmp(c.node, u.nodename, 63) == 0);
	CHECK(strncmp(c.os, u.sysname, strlen(u.sysname)) == 0);
	CHECK(strstr(c.os, u.release) != NULL || strlen(c.os) == 63);
}

int main(void)
{
	RUN(stat_parse_full);
	RUN(stat_parse_no_steal);
	RUN(stat_parse_errors);
	RUN(stat_sample_live);
	RUN(count_and_ticks);
	RUN(conf_cpu_spec_example);
	RUN(conf_cpu_x86_rules);
	RUN(conf_cpu_mixed);
	RUN(conf_cpu_truncated);
	RUN(conf_cpu_arm64);
	RUN(conf_cpu_other_arches);
	RUN(conf_cpu_nothing);
	RUN(conf_local_fields);
	return harness_done();
}
