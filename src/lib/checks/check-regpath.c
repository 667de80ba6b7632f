/* SPDX-License-Identifier: MIT */
#include "regpath.h"
#include "checks-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "checks.h"

/*
 * direct.regpath: how this node can register GPU memory with the NIC
 * (platform-facts §3): DMA-BUF (kernel >= 5.12, open module, Turing+,
 * CUDA >= 11.7, rdma-core >= v34 with a provider that implements
 * ibv_reg_dmabuf_mr, a kernel driver with reg_user_mr_dmabuf) or
 * nvidia-peermem (an ib_core that exports the PeerDirect API: MLNX_OFED or
 * DOCA-OFED, never the inbox stack). Live probe results override the tables:
 * CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED for the GPU side and the
 * ibv_reg_dmabuf_mr(fd=-1) call for the NIC side.
 */

#define PROBE_FIX "run gdrcheck probe: only a real ibv_reg_dmabuf_mr call (and the CUDA dma-buf attribute) decides"

static int min3(int a, int b)
{
	/* 0 beats unknown beats yes. */
	if (a == 0 || b == 0)
		return 0;
	if (a < 0 || b < 0)
		return -1;
	return 1;
}

static void add(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len >= size - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

static int gpu_side(const struct facts *f, struct regpath *rp)
{
	int kv = kernel_version(f), yes = 0, no = 0, v = 1;
	enum kmod_flavor fl = nvidia_flavor(f);
	bool probed;
	int cuda = cuda_version(f, &probed);

	for (size_t i = 0; i < f->n_gpus; i++)
		if (f->gpus[i].attr_dmabuf.state == FACT_OK) {
			if (f->gpus[i].attr_dmabuf.v)
				yes++;
			else
				no++;
		}
	if (no) {
		snprintf(rp->gpu_why, sizeof(rp->gpu_why),
			 "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0 on %d GPU%s (gdrcheck probe)",
			 no, no == 1 ? "" : "s");
		rp->gpu_fix = "use the open GPU kernel module (GPU Operator --set driver.kernelModuleType=open) on Turing or newer";
		return 0;
	}
	if (yes) {
		snprintf(rp->gpu_why, sizeof(rp->gpu_why),
			 "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 1 (gdrcheck probe)");
		return 1;
	}
	if (kv < 0)
		v = min3(v, -1);
	else if (kv < 512) {
		v = 0;
		rp->gpu_fix = "upgrade the kernel to 5.12 or newer";
	}
	if (fl == KMOD_PROPRIETARY) {
		v = 0;
		rp->gpu_fix = "use the open GPU kernel module (GPU Operator --set driver.kernelModuleType=open)";
	} else if (fl == KMOD_UNKNOWN) {
		v = min3(v, -1);
	}
	for (size_t i = 0; i < f->n_gpus; i++) {
		if (f->gpus[i].arch == GPU_ARCH_UNKNOWN)
			v = min3(v, -1);
		else if (f->gpus[i].arch < GPU_ARCH_TURING) {
			v = 0;
			rp->gpu_pre_turing = true;
		}
	}
	if (cuda < 0)
		v = min3(v, -1);
	else if (cuda < 11070) {
		v = 0;
		rp->gpu_fix = "upgrade the NVIDIA driver to R515 or newer";
	}
	/* Decisive, so it wins over the fixes above: no driver or module helps. */
	if (rp->gpu_pre_turing)
		rp->gpu_fix = "none for DMA-BUF: it needs a Turing or newer GPU (the open module does not run on older ones); register GPU memory with nvidia-peermem (MLNX_OFED/DOCA-OFED ib_core and a ConnectX NIC)";
	if (!f->n_gpus)
		v = 0;
	snprintf(rp->gpu_why, sizeof(rp->gpu_why),
		 "kernel %s%s, %s module, %s, CUDA %s%d.%d",
		 fact_str_ok(&f->host.kernel_release) ? f->host.kernel_release.v : "unknown",
		 kv >= 512 ? " (>= 5.12)" : kv >= 0 ? " (< 5.12)" : "",
		 fl == KMOD_OPEN ? "open" : fl == KMOD_PROPRIETARY ? "proprietary" : "unknown",
		 f->n_gpus && f->gpus[0].arch ? gpu_arch_name(f->gpus[0].arch) : "no GPU",
		 cuda < 0 ? "unknown " : "", cuda < 0 ? 0 : cuda / 1000,
		 cuda < 0 ? 0 : (cuda % 1000) / 10);
	return v;
}

/*
 * rdma-core "50.0" → 50; -1 when unknown. MLNX_OFED/DOCA-OFED builds are
 * named <yymm>mlnx<release> ("2410mlnx54.0" is DOCA 24.10 on v54).
 */
static int rdma_core_major(const struct facts *f)
{
	const struct fact_str *v = &f->host.rdma_core_version;
	const char *mlnx;

	if (!fact_str_ok(v))
		return -1;
	mlnx = strstr(v->v, "mlnx");
	return atoi(mlnx ? mlnx + strlen("mlnx") : v->v);
}

static void nic_dmabuf(const struct facts *f, const struct regpath *rp,
		       const struct rdma_dev *n, struct regpath_nic *r)
{
	const struct nic_kind_info *k = nic_kind_of(f, n);
	int kv = kernel_version(f), rc = rdma_core_major(f), kern, user;

	r->dmabuf_why[0] = '\0';
	if (n->dmabuf_mr.state == FACT_OK) {
		kern = n->dmabuf_mr.v ? 1 : 0;
		add(r->dmabuf_why, sizeof(r->dmabuf_why),
		    "ibv_reg_dmabuf_mr on %s: %s (gdrcheck probe)", n->name,
		    n->dmabuf_mr.v ? "supported" : "EOPNOTSUPP");
		if (!n->dmabuf_mr.v)
			r->dmabuf_fix = "a kernel and rdma-core whose driver and provider implement dma-buf MRs";
		r->dmabuf = min3(rp->gpu_dmabuf, kern);
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "; GPU side: %s", rp->gpu_why);
		return;
	}
	/* Kernel driver (table), then the userspace provider. */
	if (!k->dmabuf_kernel) {
		kern = 0;
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "%s", k->dmabuf_note);
	} else if (kv < 0) {
		kern = -1;
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "kernel version unknown; %s", k->dmabuf_note);
	} else if (kv >= k->dmabuf_kernel) {
		kern = k->dmabuf_certain ? 1 : -1;
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "kernel %d.%d >= %d.%d: %s%s", kv / 100, kv % 100,
		    k->dmabuf_kernel / 100, k->dmabuf_kernel % 100,
		    k->dmabuf_certain ? "" : "likely supported but unverified: ",
		    k->dmabuf_note);
	} else {
		kern = k->dmabuf_certain ? 0 : -1;
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "kernel %d.%d < %d.%d (unless the distribution backported it): %s",
		    kv / 100, kv % 100, k->dmabuf_kernel / 100, k->dmabuf_kernel % 100, k->dmabuf_note);
		r->dmabuf_fix = "a newer kernel (or the live probe shows a backport)";
	}
	if (!k->dmabuf_rdma_core || rc < 0) {
		user = k->dmabuf_rdma_core ? -1 : 0;
		if (k->dmabuf_rdma_core)
			add(r->dmabuf_why, sizeof(r->dmabuf_why), "; rdma-core version unknown (needs v%d+)",
			    k->dmabuf_rdma_core);
	} else if (rc < k->dmabuf_rdma_core) {
		user = 0;
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "; rdma-core v%d < v%d, the first with lib%s dma-buf MRs",
		    rc, k->dmabuf_rdma_core, k->provider);
		r->dmabuf_fix = "upgrade rdma-core (and the rdma-core in the workload images)";
	} else if (!name_list_has(&f->host.rdma_providers, k->provider)) {
		user = 0;
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "; rdma-core v%d but provider lib%s not installed",
		    rc, k->provider);
		r->dmabuf_fix = "install the rdma-core providers (rdma.userspace)";
	} else {
		user = 1;
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "; rdma-core v%d >= v%d with lib%s", rc,
		    k->dmabuf_rdma_core, k->provider);
	}
	r->dmabuf = min3(rp->gpu_dmabuf, min3(kern, user));
	if (rp->gpu_dmabuf == 0) {
		/* The NIC side may be ready: say which GPU prerequisite fails. */
		add(r->dmabuf_why, sizeof(r->dmabuf_why), "; GPU side not ready: %s",
		    rp->gpu_why);
		r->dmabuf_fix = rp->gpu_fix;
	}
	if (r->dmabuf < 0 && !r->dmabuf_fix) {
		r->dmabuf_fix = PROBE_FIX;
		r->dmabuf_fix_probe = true;
	}
}

static void nic_peermem(const struct facts *f, const struct regpath *rp,
			const struct rdma_dev *n, struct regpath_nic *r)
{
	const struct nic_kind_info *k = nic_kind_of(f, n);
	const struct host_facts *h = &f->host;
	bool loaded = fact_ok(&h->peer_module) || host_kmod_present(h, "nvidia_peermem");

	r->legacy = false;
	if (k->kind != NIC_MLX5) {
		r->peermem = 0;
		snprintf(r->peermem_why, sizeof(r->peermem_why),
			 "impossible: the PeerDirect API nvidia-peermem needs comes with MLNX_OFED/DOCA-OFED for ConnectX (mlx5); %s registers GPU memory only through DMA-BUF",
			 k->family);
		return;
	}
	if (rp->api == 0 && loaded) {
		/*
		 * nvidia-peermem.c nv_mem_client_init() returns -EINVAL when it
		 * was built without the PeerDirect symbols, so it cannot be
		 * loaded where ib_core lacks them: the facts contradict.
		 */
		r->peermem = -1;
		snprintf(r->peermem_why, sizeof(r->peermem_why),
			 "inconsistent: nvidia_peermem is loaded, but %.160s; its init (nv_mem_client_init) fails with EINVAL without that API: one reading is wrong (check lsmod, dmesg, modinfo ib_core)",
			 rp->api_why);
		return;
	}
	if (rp->api == 0) {
		r->peermem = 0;
		snprintf(r->peermem_why, sizeof(r->peermem_why),
			 "impossible on this stack: %s", rp->api_why);
		return;
	}
	if (loaded || host_kmod_present(h, "nv_peer_mem") || fact_ok(&h->peer_nv_mem) ||
	    fact_ok(&h->peer_nv_mem_nc)) {
		r->peermem = rp->api < 0 ? -1 : 1;
		r->legacy = !loaded;
		snprintf(r->peermem_why, sizeof(r->peermem_why), "%s loaded; %s",
			 loaded ? "nvidia_peermem" : "the deprecated nv_peer_mem", rp->api_why);
		return;
	}
	r->peermem = rp->api < 0 ? -1 : PEERMEM_LOADABLE;
	snprintf(r->peermem_why, sizeof(r->peermem_why),
		 "nvidia_peermem is not loaded; %s", rp->api_why);
}

int regpath_assess(const struct facts *f, struct regpath *rp)
{
	memset(rp, 0, sizeof(*rp));
	rp->nics = calloc(f->n_nics ? f->n_nics : 1, sizeof(*rp->nics));
	if (!rp->nics)
		return -ENOMEM;
	rp->n_nics = f->n_nics;
	rp->gpu_dmabuf = gpu_side(f, rp);
	rp->api = peer_api(f, rp->api_why, sizeof(rp->api_why));
	for (size_t i = 0; i < f->n_nics; i++) {
		nic_dmabuf(f, rp, &f->nics[i], &rp->nics[i]);
		nic_peermem(f, rp, &f->nics[i], &rp->nics[i]);
	}
	return 0;
}

void regpath_release(struct regpath *rp)
{
	free(rp->nics);
	memset(rp, 0, sizeof(*rp));
}

/*
 * What NCCL will find for a NIC at run time as the files predict it: a
 * loaded peer-memory client or usable DMA-BUF is a registration path;
 * DMA-BUF that cannot work and no loaded client is none (a loadable
 * nvidia-peermem is not loaded); else only the probe can tell.
 */
static int nic_expect(const struct regpath_nic *n)
{
	if (n->peermem == 1 || n->dmabuf == 1)
		return 1;
	if (n->dmabuf == 0 && n->peermem != -1)
		return 0;
	return -1;
}

int *regpath_nic_expect(const struct regpath *rp)
{
	int *expect = calloc(rp->n_nics + 1, sizeof(*expect));

	for (size_t i = 0; expect && i < rp->n_nics; i++)
		expect[i] = nic_expect(&rp->nics[i]);
	return expect;
}

int checks_predict_gdr(const struct facts *f, struct topo_report *topo)
{
	struct regpath rp;
	int *expect, r;

	r = regpath_assess(f, &rp);
	if (r < 0)
		return r;
	expect = regpath_nic_expect(&rp);
	if (!expect) {
		regpath_release(&rp);
		return -ENOMEM;
	}
	r = topo_predict(f, expect, topo);
	free(expect);
	regpath_release(&rp);
	return r;
}

enum check_status regpath_nic_status(const struct regpath_nic *n)
{
	if (n->dmabuf == 1 || (n->peermem == 1 && !n->legacy))
		return ST_PASS;
	if (n->peermem == 1 || n->peermem == PEERMEM_LOADABLE)
		return ST_WARN;
	if (n->dmabuf < 0 || n->peermem < 0)
		return ST_UNKNOWN;
	return ST_FAIL;
}

static const char *state_word(int v)
{
	return v == 1 ? "yes" : v == 0 ? "no" : v == PEERMEM_LOADABLE ? "possible" : "unknown";
}

static int prereq_evidence(const struct facts *f, const struct regpath *rp,
			   struct finding *out)
{
	int kv = kernel_version(f), rc = rdma_core_major(f), turing = 1;
	enum kmod_flavor fl = nvidia_flavor(f);
	bool probed;
	int cuda = cuda_version(f, &probed);

	for (size_t i = 0; i < f->n_gpus; i++)
		if (f->gpus[i].arch < GPU_ARCH_TURING)
			turing = f->gpus[i].arch == GPU_ARCH_UNKNOWN ? -1 : 0;
	TRY(finding_evidence(out, "DMA-BUF: kernel >= 5.12: %s (%s)", state_word(kv < 0 ? -1 : kv >= 512),
			     fact_str_ok(&f->host.kernel_release) ? f->host.kernel_release.v : "unknown"));
	TRY(finding_evidence(out, "DMA-BUF: open GPU kernel module: %s",
			     state_word(fl == KMOD_OPEN ? 1 : fl == KMOD_PROPRIETARY ? 0 : -1)));
	TRY(finding_evidence(out, "DMA-BUF: GPUs Turing or newer: %s", state_word(f->n_gpus ? turing : 0)));
	TRY(finding_evidence(out, "DMA-BUF: CUDA driver >= 11.7: %s (%s)", state_word(cuda < 0 ? -1 : cuda >= 11070),
			     probed ? "cuDriverGetVersion" : "driver branch"));
	TRY(finding_evidence(out, "DMA-BUF: rdma-core >= v34 (ibv_reg_dmabuf_mr, IBVERBS_1.12): %s (%s)",
			     state_word(rc < 0 ? -1 : rc >= 34),
			     fact_str_ok(&f->host.rdma_core_version) ? f->host.rdma_core_version.v : "version unknown"));
	TRY(finding_evidence(out, "DMA-BUF: kernel drivers with dma-buf MRs: mlx5 5.12, efa 5.16 (unverified), irdma 6.4 (likely, unverified), bnxt_re 6.6, mana ~6.15 (unverified); providers: mlx5 v34, efa v38, irdma v45, bnxt_re v48, mana v57"));
	TRY(finding_evidence(out, "DMA-BUF: GPU side: %s", rp->gpu_why));
	TRY(finding_evidence(out, "nvidia-peermem: ib_core exports the PeerDirect API: %s (%s)", state_word(rp->api),
			     rp->api_why));
	TRY(finding_evidence(out, "nvidia-peermem: /sys/module/nvidia_peermem/version: %s; nv_peer_mem (deprecated since R470): %s",
			     fact_ok(&f->host.peer_module) ? "present" : "absent",
			     host_kmod_present(&f->host, "nv_peer_mem") ? "loaded" : "absent"));
	return finding_evidence(out, "nvidia-peermem ships with the driver since R470 (Ubuntu: nvidia-driver-<branch>-server and -server-open carry it, nvidia-driver-<branch>-open does not); GPU Operator loads it with driver.rdma.enabled=true");
}

static int direct_regpath(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct regpath *rp = ctx->regpath;
	char subj[96];
	int r, dmabuf_yes = 0, peer_zero = 0, unknown = 0, dmabuf_unknown = 0;
	bool contradiction = false;
	const char *fix = NULL;
	struct fix_kind fix_kind = out->declared;

	if (!f->n_gpus || !f->n_nics)
		return finding_set(out, ST_SKIP, "needs a GPU and an RDMA NIC (%zu GPUs, %zu RDMA devices)",
				   f->n_gpus, f->n_nics);
	r = prereq_evidence(f, rp, out);
	for (size_t i = 0; i < rp->n_nics && r >= 0; i++) {
		const struct regpath_nic *n = &rp->nics[i];
		enum check_status st = regpath_nic_status(n);
		const char *item_fix = NULL;
		struct fix_kind kind = out->declared;

		nic_subject(&f->nics[i], subj, sizeof(subj));
		dmabuf_yes += n->dmabuf == 1;
		peer_zero += n->peermem == 0;
		unknown += st == ST_UNKNOWN;
		dmabuf_unknown += n->dmabuf < 0;
		contradiction = contradiction || strncmp(n->peermem_why, "inconsistent:", 13) == 0;
		if (st == ST_WARN && n->legacy) {
			item_fix = "replace nv_peer_mem with nvidia-peermem (modprobe -r nv_peer_mem; modprobe nvidia-peermem)";
			kind.effect = FIX_DRIVER_RELOAD;
		} else if (st == ST_WARN) {
			item_fix = "modprobe nvidia-peermem (GPU Operator: driver.rdma.enabled=true)";
			kind.command = true;
		} else if (st == ST_UNKNOWN || st == ST_FAIL) {
			item_fix = n->dmabuf_fix;
			if (n->dmabuf_fix_probe)
				kind.action = FIX_TEST;
		}
		if (item_fix && !fix) {
			fix = item_fix;
			fix_kind = kind;
		}
		r = finding_item(out, subj, st, item_fix,
				 "DMA-BUF %s (%s); nvidia-peermem %s (%s)",
				 state_word(n->dmabuf), n->dmabuf_why, state_word(n->peermem), n->peermem_why);
		finding_item_kind(out, kind);
	}
	if (r < 0)
		return r;
	switch (out->status) {
	case ST_PASS:
		r = finding_set(out, ST_PASS, "GPU memory can be registered with every NIC: %s",
				dmabuf_yes ? "DMA-BUF" : "nvidia-peermem");
		break;
	case ST_WARN:
		r = finding_set(out, ST_WARN, "nvidia-peermem can serve some NICs but is not loaded (or is the deprecated nv_peer_mem)");
		break;
	case ST_UNKNOWN:
		if (contradiction && !dmabuf_unknown) {
			r = finding_set(out, ST_UNKNOWN,
					"the facts contradict: nvidia_peermem is loaded on an ib_core without the PeerDirect API, where it cannot load; DMA-BUF is not ready either (see the items)");
			break;
		}
		r = finding_set(out, ST_UNKNOWN, "%s; DMA-BUF %s for %d NIC%s is not decidable from files: the live probe (ibv_reg_dmabuf_mr) decides it",
				(size_t)peer_zero == rp->n_nics ? "nvidia-peermem is impossible on this stack" : "nvidia-peermem is not usable",
				rp->gpu_dmabuf == 1 ? "is ready on the GPU side, but" : "support",
				unknown, unknown == 1 ? "" : "s");
		if (r >= 0) {
			fix = PROBE_FIX;
			fix_kind.action = FIX_TEST;
		}
		break;
	default:
		r = finding_set(out, out->status, "no way to register GPU memory with some NICs: neither DMA-BUF nor nvidia-peermem can work");
		break;
	}
	if (r >= 0 && fix && out->status != ST_PASS) {
		finding_fix_kind(out, fix_kind);
		r = finding_fix(out, "%s", fix);
	}
	return r;
}

const struct check check_direct_regpath = {
	"direct.regpath", GATE_DIRECT, "the memory-registration path (DMA-BUF prerequisites or nvidia-peermem)",
	direct_regpath,
	.fix = { .phase = POC_GPUDIRECT },
};
