/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Shared expectations for the semantics cases (semantics.c) and the
 * fault-injection cases (faults.c).  Each expect_* records one or two
 * checks and returns whether the expectation held.
 */
#ifndef SV_CASES_H
#define SV_CASES_H

#include "vhelp.h"

int expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status want,
	      const char *what, struct ibv_wc *out);
int expect_quiet(struct ibv_cq *cq, const char *what);
int expect_state(struct ibv_qp *qp, int want, const char *what);
void expect_access_event(struct sv_side *s, struct ibv_qp *qp);
void finish(struct sv_side *s, struct ibv_qp *qp, struct sv_buf *b1,
	    struct sv_buf *b2);
int post_ud(struct ibv_qp *qp, struct ibv_ah *ah, const struct sv_addr *peer,
	    uint32_t qkey, uint64_t wr_id, struct sv_buf *b, size_t off,
	    uint32_t len);

/* The fault-injection cases (faults.c), spliced into the test table. */
void t_fault_ud_drop(struct sv_side *s);

#define FAULT_CASES
#endif
