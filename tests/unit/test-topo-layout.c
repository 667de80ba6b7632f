/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture-builder.h"
#include "topo/topo-layout.h"
#include "topo/topo.h"

/*
 * The node picture's layout on facts built in memory: which boxes, where,
 * which links are marked, which NIC each GPU's path goes to.
 */

#define H15 "pci0000:15"
#define H9A "pci0000:9a"

static struct facts F;
static struct topo_report R;
static struct topo_layout L;

static int setup(void **state)
{
	(void)state;
	facts_init(&F);
	memset(&R, 0, sizeof(R));
	memset(&L, 0, sizeof(L));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	topo_layout_release(&L);
	topo_report_release(&R);
	facts_release(&F);
	return 0;
}

static void build(void)
{
	tb_done(&F);
	assert_int_equal(topo_analyse(&F, &R), 0);
	assert_int_equal(topo_layout_build(&F, &R, &L), 0);
}

static size_t count(enum lay_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < L.n_boxes; i++)
		n += L.boxes[i].kind == k;
	return n;
}

static const struct lay_box *find(enum lay_kind k, size_t idx)
{
	for (size_t i = 0; i < L.n_boxes; i++)
		if (L.boxes[i].kind == k && L.boxes[i].index == idx)
			return &L.boxes[i];
	fail_msg("no %s box %zu", lay_kind_name(k), idx);
	return NULL;
}

static bool inside(const struct lay_box *b, int x, int y)
{
	return x >= b->x && x <= b->x + b->w && y >= b->y && y <= b->y + b->h;
}

static void assert_no_overlap(void)
{
	for (size_t i = 0; i < L.n_boxes; i++) {
		const struct lay_box *a = &L.boxes[i];

		assert_true(a->x >= 0 && a->x + a->w <= L.width);
		assert_true(a->y >= 0 && a->y + a->h <= L.height);
		for (size_t j = i + 1; j < L.n_boxes; j++) {
			const struct lay_box *b = &L.boxes[j];

			if (a->x < b->x + b->w && b->x < a->x + a->w &&
			    a->y < b->y + b->h && b->y < a->y + a->h)
				fail_msg("boxes %zu and %zu overlap", i, j);
		}
	}
}

/* Root port → switch (upstream port 16:00.0) → downstream ports → devices. */
static void one_switch(int n_nics)
{
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_bridge(&F, "0000:16:00.0", "0000:15:01.0", H15, 0);
	tb_bridge(&F, "0000:17:00.0", "0000:16:00.0", H15, 0);
	tb_gpu(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x2330, 0);
	for (int i = 0; i < n_nics; i++) {
		char dsp[16], bdf[16], name[16];

		snprintf(dsp, sizeof(dsp), "0000:17:%02x.0", i + 1);
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", 0x20 + i);
		snprintf(name, sizeof(name), "mlx5_%d", i);
		tb_bridge(&F, dsp, "0000:16:00.0", H15, 0);
		tb_nic(&F, name, bdf, dsp, H15, 0);
	}
}

static void test_switch_boxes_and_stack(void **state)
{
	(void)state;
	one_switch(4);
	build();
	/* Downstream ports are part of the switch box. */
	assert_int_equal(count(LAY_CPU), 1);
	assert_int_equal(count(LAY_ROOT_PORT), 1);
	assert_int_equal(count(LAY_SWITCH), 1);
	assert_int_equal(count(LAY_GPU), 1);
	assert_int_equal(count(LAY_NIC), 4);
	/* Four NICs under one parent: one column, in index order. */
	for (size_t i = 1; i < 4; i++) {
		assert_int_equal(find(LAY_NIC, i)->x, find(LAY_NIC, 0)->x);
		assert_true(find(LAY_NIC, i)->y >
			    find(LAY_NIC, i - 1)->y + find(LAY_NIC, i - 1)->h);
	}
	assert_no_overlap();
}

static void test_nearest_and_path(void **state)
{
	const struct lay_path *p;

	(void)state;
	one_switch(2);
	tb_gpu(&F, "0000:19:00.0", "0000:17:03.0", H15, 0x2330, 0);
	tb_bridge(&F, "0000:17:03.0", "0000:16:00.0", H15, 0);
	fact_int_set(&F.host.peer_module, 1);
	build();
	for (size_t i = 0; i < F.n_gpus; i++)
		fact_int_set(&F.gpus[i].attr_gdr, 1);
	topo_layout_release(&L);
	topo_report_release(&R);
	assert_int_equal(topo_analyse(&F, &R), 0);
	assert_int_equal(topo_layout_build(&F, &R, &L), 0);

	/* Both NICs are PIX to both GPUs: each GPU gets its own. */
	assert_int_equal(L.n_paths, 2);
	assert_int_equal(L.paths[0].nic, 0);
	assert_int_equal(L.paths[1].nic, 1);
	for (size_t i = 0; i < 2; i++) {
		p = &L.paths[i];
		assert_int_equal(p->verdict, LAY_GDR_ON);
		assert_int_equal(find(LAY_GPU, i)->verdict, LAY_GDR_ON);
		assert_true(inside(find(LAY_GPU, p->gpu), p->pts[0][0], p->pts[0][1] - 3) ||
			    inside(find(LAY_GPU, p->gpu), p->pts[0][0], p->pts[0][1] + 3));
		assert_non_null(strstr(p->tip, "PIX"));
	}
	assert_no_overlap();
}

static void test_degraded_link(void **state)
{
	struct pci_dev *gpu, *nic, *dsp;

	(void)state;
	one_switch(1);
	build();
	gpu = &F.pci[F.gpus[0].pci];
	nic = &F.pci[F.nics[0].pci];
	dsp = &F.pci[gpu->parent_idx];
	/* GPU: Gen3 x16 now, both ends Gen5: marked, with the idle hint. */
	fact_int_set(&gpu->cur_speed, 80);
	fact_int_set(&gpu->max_speed, 320);
	fact_int_set(&gpu->cur_width, 16);
	fact_int_set(&gpu->max_width, 16);
	fact_int_set(&dsp->max_speed, 320);
	fact_int_set(&dsp->max_width, 16);
	/* NIC: a Gen5 card in a Gen4 port trains Gen4: not a fault. */
	fact_int_set(&nic->cur_speed, 160);
	fact_int_set(&nic->max_speed, 320);
	fact_int_set(&nic->cur_width, 16);
	fact_int_set(&nic->max_width, 16);
	fact_int_set(&F.pci[nic->parent_idx].max_speed, 160);
	topo_layout_release(&L);
	assert_int_equal(topo_layout_build(&F, &R, &L), 0);
	for (size_t i = 0; i < L.n_edges; i++) {
		const struct lay_edge *e = &L.edges[i];
		enum lay_kind k = L.boxes[e->child].kind;

		if (k == LAY_GPU) {
			assert_true(e->degraded);
			assert_string_equal(e->label, "Gen3 x16 \u25bc");
			assert_non_null(strstr(e->tip, "idle GPU"));
		} else if (k == LAY_NIC) {
			assert_false(e->degraded);
			assert_string_equal(e->label, "Gen4 x16");
		}
	}
}

/* Broadcom PEX Gen5: one upstream port at level 0, two below at level 1. */
static void test_bcm_flattened(void **state)
{
	(void)state;
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_pci(&F, "0000:16:00.0", "0000:15:01.0", H15, 0x060400, 0x1000, 0xc030, 0);
	tb_pci_subsys(&F, "0000:16:00.0", 0x1000, 0x0100);
	tb_bridge(&F, "0000:17:00.0", "0000:16:00.0", H15, 0);
	tb_bridge(&F, "0000:17:01.0", "0000:16:00.0", H15, 0);
	tb_pci(&F, "0000:18:00.0", "0000:17:00.0", H15, 0x060400, 0x1000, 0xc030, 0);
	tb_pci_subsys(&F, "0000:18:00.0", 0x1000, 0x1100);
	tb_pci(&F, "0000:1a:00.0", "0000:17:01.0", H15, 0x060400, 0x1000, 0xc030, 0);
	tb_pci_subsys(&F, "0000:1a:00.0", 0x1000, 0x1100);
	tb_bridge(&F, "0000:19:00.0", "0000:18:00.0", H15, 0);
	tb_bridge(&F, "0000:1b:00.0", "0000:1a:00.0", H15, 0);
	tb_gpu(&F, "0000:1c:00.0", "0000:19:00.0", H15, 0x2330, 0);
	tb_nic(&F, "mlx5_0", "0000:1d:00.0", "0000:1b:00.0", H15, 0);
	build();
	/* NCCL makes the three switches one: one box, GPU and NIC below it. */
	assert_int_equal(count(LAY_SWITCH), 1);
	for (size_t i = 0; i < L.n_boxes; i++)
		if (L.boxes[i].kind == LAY_SWITCH) {
			assert_true(L.boxes[i].flattened);
			assert_non_null(L.boxes[i].tip);
			assert_int_equal(find(LAY_GPU, 0)->parent, (int)i);
			assert_int_equal(find(LAY_NIC, 0)->parent, (int)i);
		}
	assert_int_equal(R.pairs[0].nccl_pci, PATH_PIX);
	assert_no_overlap();
}

static void test_two_sockets(void **state)
{
	const struct lay_path *p;
	bool crosses = false;

	(void)state;
	tb_bridge(&F, "0000:15:01.0", "", H15, 0);
	tb_gpu(&F, "0000:16:00.0", "0000:15:01.0", H15, 0x2330, 0);
	tb_bridge(&F, "0000:9a:01.0", "", H9A, 1);
	tb_nic(&F, "mlx5_0", "0000:9b:00.0", "0000:9a:01.0", H9A, 1);
	build();
	assert_int_equal(count(LAY_CPU), 2);
	assert_int_equal(L.n_smp, 1);
	p = &L.paths[0];
	for (size_t k = 1; k < p->n_pts; k++)
		crosses |= p->pts[k - 1][1] == p->pts[k][1] &&
			   abs(p->pts[k - 1][1] - 3 - L.smp[0].y) <= 6;
	assert_true(crosses);
	assert_non_null(strstr(p->tip, "SYS"));
	assert_no_overlap();
}

static void test_deterministic(void **state)
{
	struct topo_layout again;

	(void)state;
	one_switch(5);
	build();
	assert_int_equal(topo_layout_build(&F, &R, &again), 0);
	assert_int_equal(again.n_boxes, L.n_boxes);
	for (size_t i = 0; i < L.n_boxes; i++) {
		assert_int_equal(again.boxes[i].x, L.boxes[i].x);
		assert_int_equal(again.boxes[i].y, L.boxes[i].y);
		assert_string_equal(again.boxes[i].lines[0], L.boxes[i].lines[0]);
	}
	topo_layout_release(&again);
}

static void test_empty(void **state)
{
	(void)state;
	build();
	assert_int_equal(L.n_boxes, 0);
	assert_int_equal(L.n_paths, 0);
	assert_true(L.width > 0 && L.height > 0);
	assert_non_null(L.title);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_switch_boxes_and_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nearest_and_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_degraded_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bcm_flattened, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_sockets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
