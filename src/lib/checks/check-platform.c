/* SPDX-License-Identifier: MIT */
#include "checks-internal.h"
#include "checks-platform.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"
#include "platform-matrix.h"

/*
 * The node the POC really has (docs/poc.md): the kernel it booted against
 * the release installed, who builds the NVIDIA driver for that kernel, and
 * NVIDIA's support tables for the OS, Kubernetes, GPU Operator and NIC.
 */

#define SRC_DRIVER_CTR "NVIDIA/gpu-driver-container rhel10/nvidia-driver (06a208c, 2026-08-17): _get_rhel_version_from_kernel, _install_prerequisites"
#define SRC_AIRGAP "NVIDIA/cloud-native-docs gpu-operator/install-gpu-operator-air-gapped.rst, Local Package Repository and Local Image Registry"
#define SRC_PRECOMP "NVIDIA/cloud-native-docs gpu-operator/precompiled-drivers.rst and platform-support.rst, Supported Precompiled Drivers"

/* Helpers ------------------------------------------------------------ */

int kernel_el_release(const char *krel, int *maj, int *min)
{
	const char *best = NULL;

	if (!krel)
		return -EINVAL;
	/* The last ".el<digit>" (the driver container's greedy sed does the same). */
	for (const char *p = strstr(krel, ".el"); p; p = strstr(p + 1, ".el"))
		if (isdigit((unsigned char)p[3]))
			best = p + 3;
	if (!best)
		return -EINVAL;
	*maj = (int)strtol(best, (char **)&best, 10);
	*min = -1;
	if (*best == '_' && isdigit((unsigned char)best[1]))
		*min = (int)strtol(best + 1, NULL, 10);
	return *maj > 0 && *maj < 100 && *min < 1000 ? 0 : -EINVAL;
}

int kernel_ubuntu_flavor(const char *krel, char *ver, size_t vsize,
			 char *flavor, size_t fsize)
{
	unsigned a, b, c, abi;
	int n = 0;

	/* "6.8.0-60-generic": version, ABI number, flavour. */
	if (!krel || sscanf(krel, "%u.%u.%u-%u-%n", &a, &b, &c, &abi, &n) != 4 ||
	    !n || !krel[n] || strlen(krel + n) >= fsize)
		return -EINVAL;
	snprintf(ver, vsize, "%u.%u", a, b);
	snprintf(flavor, fsize, "%s", krel + n);
	return 0;
}

int kernel_gcc_version(const char *proc_version, char *buf, size_t size)
{
	const char *p = proc_version ? strstr(proc_version, "gcc (GCC) ") : NULL;
	size_t n;

	if (!p)
		return -ENOENT;
	p += strlen("gcc (GCC) ");
	n = strspn(p, "0123456789.");
	if (!n || n >= size)
		return -EINVAL;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

/* The RHEL rebuilds whose kernels carry Red Hat's elN_M dist tag. */
static bool rhel_family(const struct facts *f)
{
	static const char *const ids[] = { "rhel", "centos", "rocky",
					    "almalinux", "ol" };

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		if (fact_str_is(&f->host.os_id, ids[i]))
			return true;
	return false;
}

/* "10.2" -> 10, 2; "10" -> 10, -1. */
static int os_version(const struct facts *f, int *maj, int *min)
{
	const struct fact_str *v = &f->host.os_version_id;
	unsigned a, b;

	if (!fact_str_ok(v))
		return -ENOENT;
	if (sscanf(v->v, "%u.%u", &a, &b) == 2) {
		*maj = (int)a;
		*min = (int)b;
		return 0;
	}
	if (sscanf(v->v, "%u", &a) == 1) {
		*maj = (int)a;
		*min = -1;
		return 0;
	}
	return -EINVAL;
}

/* "YY.MM" as a number for comparisons (26.3 -> 2603); -1 if none. */
static int operator_num(const char *major)
{
	unsigned a, b;

	if (!major || sscanf(major, "%u.%u", &a, &b) != 2)
		return -1;
	return (int)(a * 100 + b);
}

static const char *host_arch(const struct facts *f)
{
	const struct fact_str *k = &f->host.kernel_release;
	const struct fact_str *nv = &f->host.nvidia_version;

	if (fact_str_ok(k) && strstr(k->v, "x86_64"))
		return "x86_64";
	if (fact_str_ok(k) && (strstr(k->v, "aarch64") || strstr(k->v, "-64k")))
		return "aarch64";
	if (fact_str_ok(nv) && strstr(nv->v, "x86_64"))
		return "x86_64";
	if (fact_str_ok(nv) && strstr(nv->v, "aarch64"))
		return "aarch64";
	return NULL;
}

/* Characters an image tag may hold ([A-Za-z0-9_.-]): os-release is the node's text. */
static bool tag_safe(const char *s)
{
	if (!s || !*s || strlen(s) > 40)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return false;
	return true;
}

int gpu_operator_os_tag(const struct facts *f, const char *operator_version, char *buf, size_t size)
{
	const char *id = f->host.os_id.v, *ver = f->host.os_version_id.v;
	char major[16];
	int maj, min, op = -1, r;
	bool major_only = false;

	if (!fact_str_ok(&f->host.os_id) || !fact_str_ok(&f->host.os_version_id) || !tag_safe(id) ||
	    !tag_safe(ver) || os_version(f, &maj, &min) < 0)
		return -EINVAL;
	if (operator_version && matrix_operator_major(operator_version, major, sizeof(major)) == 0)
		op = operator_num(major);
	/*
	 * The operator's getGPUNodeOSInfo (controllers/state_manager.go): the
	 * full VERSION_ID up to 25.10; from 26.3 Rocky and RHEL 10 and later
	 * the major release only; from 26.7 Oracle Linux and every RHEL too
	 * (PR #2497). An unknown version takes the newest rule.
	 */
	if (op < 0 || op >= 2607)
		major_only = !strcmp(id, "rhel") || !strcmp(id, "rocky") || !strcmp(id, "ol");
	else if (op >= 2603)
		major_only = !strcmp(id, "rocky") || (!strcmp(id, "rhel") && maj >= 10);
	r = major_only ? xsnprintf(buf, size, "%s%d", id, maj) :
			 xsnprintf(buf, size, "%s%s", id, ver);
	return r < 0 ? r : 0;
}

/* The OS part of the conventional driver image tag (gpu-operator getOSTag). */
static void driver_os_tag(const struct facts *f, const struct operator_matrix *m, char *buf,
			  size_t size)
{
	if (gpu_operator_os_tag(f, m ? m->major : NULL, buf, size) < 0)
		snprintf(buf, size, "%s", fact_str_ok(&f->host.os_id) ? f->host.os_id.v : "<os>");
}

void host_os_name(const struct facts *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s", f->host.os_id.v,
		 fact_str_ok(&f->host.os_version_id) ? f->host.os_version_id.v : "?");
}

/* gpu.kernel-release ------------------------------------------------- */

/* The newest installed kernel of the release @maj.@min, into @buf. */
static bool installed_kernel_of(const struct platform_facts *p, int maj, int min,
				char *buf, size_t size)
{
	const char *best = NULL;

	for (size_t i = 0; p->kernels && p->kernels[i]; i++) {
		int a, b;

		if (kernel_el_release(p->kernels[i], &a, &b) == 0 && a == maj &&
		    b == min && (!best || strverscmp(p->kernels[i], best) > 0))
			best = p->kernels[i];
	}
	if (best)
		snprintf(buf, size, "%s", best);
	return best != NULL;
}

static int release_evidence(struct finding *out, const struct facts *f)
{
	const struct platform_facts *p = &f->host.platform;
	char why[64], list[512] = "";

	TRY(finding_evidence(out, "/etc/redhat-release: %s",
			     fact_str_ok(&p->redhat_release) ? p->redhat_release.v :
			     fact_why(p->redhat_release.state, p->redhat_release.err,
				      why, sizeof(why))));
	if (fact_str_ok(&p->proc_version))
		TRY(finding_evidence(out, "/proc/version: %.200s", p->proc_version.v));
	for (size_t i = 0; p->kernels && p->kernels[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", p->kernels[i]);
	if (fact_ok(&p->kernels_listed))
		TRY(finding_evidence(out, "/lib/modules (installed kernels): %s",
				     *list ? list : "none"));
	return 0;
}

/* "Red Hat Enterprise Linux release 10.2 (Coughlan)" -> "10.2". */
static bool redhat_release_version(const struct fact_str *r, char *buf, size_t size)
{
	const char *p = fact_str_ok(r) ? strstr(r->v, "release ") : NULL;
	size_t n;

	if (!p)
		return false;
	p += strlen("release ");
	n = strspn(p, "0123456789.");
	if (!n || n >= size)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

static int mismatch_fix(struct finding *out, const struct facts *f, int kmaj,
			int kmin, int omaj, int omin)
{
	const char *krel = f->host.kernel_release.v;
	char k[256], drain[160], uncordon[96];

	drain_cmd(f, drain, sizeof(drain));
	uncordon_cmd(f, uncordon, sizeof(uncordon));
	if (kmaj == omaj && kmin > omin)
		return finding_fix(out, "%s, then bring the rest of the system to the kernel's release (dnf upgrade --releasever=%d.%d) and reboot, then %s",
				   drain, kmaj, kmin, uncordon);
	if (installed_kernel_of(&f->host.platform, omaj, omin, k, sizeof(k)))
		return finding_fix(out, "%s, then boot the installed RHEL %d.%d kernel: grubby --set-default /boot/vmlinuz-%s && reboot, then %s (if %s is held on purpose, the package mirror must serve kernel-devel-%s and kernel-headers-%s for release %d.%d instead)",
				   drain, omaj, omin, k, uncordon, krel, krel, krel, kmaj, kmin);
	return finding_fix(out, "%s, then dnf upgrade kernel and reboot into RHEL %d.%d's kernel, then %s (if %s is held on purpose, the package mirror must serve kernel-devel-%s and kernel-headers-%s for release %d.%d instead)",
			   drain, omaj, omin, uncordon, krel, krel, krel, kmaj, kmin);
}

static int kernel_release(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct host_facts *h = &f->host;
	const char *krel = h->kernel_release.v;
	char why[64], rr[16], tag[32];
	int kmaj, kmin, omaj, omin;

	TRY(finding_evidence(out, "/etc/os-release: ID=%s VERSION_ID=%s",
			     fact_str_ok(&h->os_id) ? h->os_id.v : "?",
			     fact_str_ok(&h->os_version_id) ? h->os_version_id.v : "?"));
	TRY(finding_evidence(out, "/proc/sys/kernel/osrelease: %s",
			     fact_str_ok(&h->kernel_release) ? krel :
			     fact_why(h->kernel_release.state, h->kernel_release.err,
				      why, sizeof(why))));
	if (!fact_str_ok(&h->os_id))
		return finding_set(out, ST_UNKNOWN, "/etc/os-release could not be read (%s): the installed release is not known",
				   fact_why(h->os_id.state, h->os_id.err, why, sizeof(why)));
	if (!fact_str_ok(&h->kernel_release))
		return finding_set(out, ST_UNKNOWN, "the running kernel's release could not be read");
	if (!rhel_family(f))
		return finding_set(out, ST_SKIP, "%s kernels do not name the OS release they were built for: nothing to compare",
				   h->os_id.v);
	TRY(release_evidence(out, f));
	if (os_version(f, &omaj, &omin) < 0)
		return finding_set(out, ST_UNKNOWN, "/etc/os-release has no usable VERSION_ID");
	if (kernel_el_release(krel, &kmaj, &kmin) < 0)
		return finding_set(out, ST_INFO, "kernel %s carries no RHEL release tag (elN_M): a custom or third-party kernel; the GPU Operator's driver container then installs packages for the major release (dnf --releasever=%d)",
				   krel, omaj);
	if (kmin >= 0)
		snprintf(tag, sizeof(tag), "el%d_%d", kmaj, kmin);
	else
		snprintf(tag, sizeof(tag), "el%d", kmaj);
	TRY(finding_evidence(out, "release of the kernel: %s (Red Hat's dist tag; the GPU Operator's driver container reads it the same way: %s)",
			     tag, SRC_DRIVER_CTR));
	if (redhat_release_version(&h->platform.redhat_release, rr, sizeof(rr)) &&
	    strcmp(rr, h->os_version_id.v) != 0) {
		TRY(finding_set(out, ST_WARN, "/etc/redhat-release says %s but /etc/os-release VERSION_ID says %s: the release files disagree (a partial update)",
				rr, h->os_version_id.v));
		char drain[160], uncordon[96];

		drain_cmd(f, drain, sizeof(drain));
		uncordon_cmd(f, uncordon, sizeof(uncordon));
		return finding_fix(out, "%s, then finish the update (dnf upgrade) and reboot, then %s",
				   drain, uncordon);
	}
	if (kmaj != omaj) {
		TRY(finding_set(out, ST_WARN, "running kernel %s was built for RHEL %d, but the installed release is %s",
				krel, kmaj, h->os_version_id.v));
		char drain[160], uncordon[96];

		drain_cmd(f, drain, sizeof(drain));
		uncordon_cmd(f, uncordon, sizeof(uncordon));
		return finding_fix(out, "%s, then install and boot a RHEL %d kernel (dnf install kernel) and reboot, then %s",
				   drain, omaj, uncordon);
	}
	if (kmin < 0 || omin < 0)
		return finding_set(out, ST_PASS, "kernel %s is RHEL %d's (the release names no minor version to compare)",
				   krel, kmaj);
	if (kmin == omin)
		return finding_set(out, ST_PASS, "kernel %s belongs to the installed release, RHEL %d.%d",
				   krel, omaj, omin);
	TRY(finding_set(out, ST_WARN, "running kernel %s is RHEL %d.%d's (el%d_%d), but the installed release is %d.%d: %s",
			krel, kmaj, kmin, kmaj, kmin, omaj, omin,
			kmin < omin ? "the node was updated without a reboot, or the kernel is held back" :
				      "the kernel is newer than the rest of the system"));
	TRY(finding_evidence(out, "GPU Operator: Node Feature Discovery labels the node from /etc/os-release (system-os_release.VERSION_ID=%d.%d), while the driver container builds for the kernel and installs its packages with dnf --releasever=%d.%d (kernel-headers-%s, kernel-devel-%s)",
			     omaj, omin, kmaj, kmin, krel, krel));
	return mismatch_fix(out, f, kmaj, kmin, omaj, omin);
}

const struct check check_gpu_kernel_release = {
	"gpu.kernel-release", GATE_GPU,
	"the running kernel belongs to the installed OS release (RHEL elN_M tag against /etc/os-release)",
	kernel_release,
	.fix = { .phase = POC_OS, .effect = FIX_DRAIN },
};

/* gpu.driver-build --------------------------------------------------- */

/* A presence fact as the evidence says it; "not collected" when unset (an older facts file). */
static const char *presence(const struct fact_int *f)
{
	switch (f->state) {
	case FACT_OK:
		return "present";
	case FACT_UNSET:
		return "not collected";
	case FACT_ABSENT:
		return "absent";
	default:
		return "not readable";
	}
}

enum driver_source { SRC_NONE, SRC_HOST, SRC_CONTAINER, SRC_UNSEEN };

static enum driver_source driver_source(const struct facts *f, bool loaded)
{
	const struct platform_facts *p = &f->host.platform;

	if (fact_ok(&p->validated_host_driver))
		return p->validated_host_driver.v ? SRC_HOST : SRC_CONTAINER;
	if (fact_ok(&p->driver_root))
		return SRC_CONTAINER;
	if (fact_ok(&p->host_smi))
		return SRC_HOST;
	return loaded ? SRC_UNSEEN : SRC_NONE;
}

bool gpu_driver_on_host(const struct facts *f)
{
	const struct kmod *nv = host_kmod(&f->host, "nvidia");

	return driver_source(f, nv && nv->present) == SRC_HOST;
}

/* The published precompiled image for this node's kernel, or NULL. */
static const struct matrix_precompiled *precompiled_for(const struct facts *f,
							const struct operator_matrix *m,
							char *kver, size_t ksize,
							char *flavor, size_t fsize)
{
	const char *arch = host_arch(f);

	if (!fact_str_is(&f->host.os_id, "ubuntu") || !fact_str_ok(&f->host.os_version_id) ||
	    (arch && strcmp(arch, "x86_64") != 0) ||
	    kernel_ubuntu_flavor(f->host.kernel_release.v, kver, ksize, flavor,
				 fsize) < 0)
		return NULL;
	for (size_t i = 0; i < MATRIX_MAX_PRECOMPILED && m->precompiled[i].os_version; i++) {
		const struct matrix_precompiled *pc = &m->precompiled[i];
		bool fl = false, kv = false;

		if (strcmp(pc->os_version, f->host.os_version_id.v) != 0)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(pc->flavors) && pc->flavors[k]; k++)
			fl = fl || strcmp(pc->flavors[k], flavor) == 0;
		for (size_t k = 0; k < ARRAY_SIZE(pc->kernels) && pc->kernels[k]; k++)
			kv = kv || strcmp(pc->kernels[k], kver) == 0;
		if (fl && kv)
			return pc;
	}
	return NULL;
}

/*
 * What the driver container needs to compile the module for the running
 * kernel: the "what" into @need, the air-gapped fix into @fix.
 */
static void build_needs(const struct facts *f, const struct operator_matrix *m,
			const char *drv, char *need, size_t nsize, char *fix,
			size_t fsize)
{
	const char *krel = f->host.kernel_release.v;
	const struct platform_facts *p = &f->host.platform;
	char tag[96], gcc[32], rel[16];
	int kmaj, kmin, omaj, omin;

	driver_os_tag(f, m, tag, sizeof(tag));
	if (rhel_family(f)) {
		if (kernel_el_release(krel, &kmaj, &kmin) == 0 && kmin >= 0)
			snprintf(rel, sizeof(rel), "%d.%d", kmaj, kmin);
		else if (os_version(f, &omaj, &omin) == 0)
			snprintf(rel, sizeof(rel), "%d", omaj);
		else
			snprintf(rel, sizeof(rel), "?");
		if (!fact_str_ok(&p->proc_version) ||
		    kernel_gcc_version(p->proc_version.v, gcc, sizeof(gcc)) < 0)
			snprintf(gcc, sizeof(gcc), "<the compiler of /proc/version>");
		snprintf(need, nsize, "the GPU Operator's driver container (driver:%s-%s) compiles the module at start, NVIDIA publishing precompiled driver images for Ubuntu only: with dnf --releasever=%s (the kernel's release) it installs elfutils-libelf-devel, kernel-headers-%s, kernel-devel-%s, kernel-%s and gcc-%s (the compiler /proc/version names)",
			 drv, tag, rel, krel, krel, krel, gcc);
		snprintf(fix, fsize, "air-gapped: the package mirror (Nexus) must serve elfutils-libelf-devel, kernel-headers-%s, kernel-devel-%s, kernel-%s and gcc-%s for release %s; put its .repo file in a ConfigMap (kubectl create configmap repo-config -n gpu-operator --from-file=mirror.repo) and --set driver.repoConfig.configMapName=repo-config; push the operator's images, driver:%s-%s included, to the registry mirror and set the chart's repository values to it",
			 krel, krel, krel, gcc, rel, drv, tag);
		return;
	}
	if (fact_str_is(&f->host.os_id, "ubuntu")) {
		snprintf(need, nsize, "the GPU Operator's driver container (driver:%s-%s) compiles the module at start: it installs linux-headers-%s, linux-image-%s and linux-modules-%s",
			 drv, tag, krel, krel, krel);
		snprintf(fix, fsize, "air-gapped: the package mirror must serve linux-headers-%s, linux-image-%s and linux-modules-%s; put its sources list in a ConfigMap and --set driver.repoConfig.configMapName=<it>; push the operator's images, driver:%s-%s included, to the registry mirror and set the chart's repository values to it",
			 krel, krel, krel, drv, tag);
		return;
	}
	snprintf(need, nsize, "the GPU Operator's driver container (driver:%s-%s) compiles the module for %s at start: it needs that kernel's headers and development files from the distribution's repositories",
		 drv, tag, krel);
	snprintf(fix, fsize, "air-gapped: mirror the kernel's headers and development packages, --set driver.repoConfig.configMapName=<repo ConfigMap>, and push the operator's images to the registry mirror");
}

static int driver_build(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const struct platform_facts *p = &f->host.platform;
	const struct kmod *nv = host_kmod(&f->host, "nvidia");
	bool loaded = nv && nv->present;
	const struct operator_matrix *m = NULL;
	const struct matrix_precompiled *pc = NULL;
	char ver[64] = "", major[16], kver[16], need[1024], fix[1024], tag[96];
	char flavor[64], pcdesc[160] = "";
	const char *krel = f->host.kernel_release.v;
	enum driver_source src;
	int branch;

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	if (!fact_str_ok(&f->host.kernel_release) || !fact_str_ok(&f->host.os_id))
		return finding_set(out, ST_UNKNOWN, "the kernel release or /etc/os-release could not be read: which driver build this kernel needs is not known");
	if (ctx->opts->gpu_operator_version &&
	    matrix_operator_major(ctx->opts->gpu_operator_version, major, sizeof(major)) == 0)
		m = matrix_operator(major);
	if (!m)
		m = matrix_operator_latest();
	branch = nvidia_branch(f, ver, sizeof(ver));
	src = driver_source(f, loaded);
	TRY(finding_evidence(out, "/sys/module/nvidia: %s%s%s", loaded ? "loaded" : "absent",
			     *ver ? ", version " : "", ver));
	TRY(finding_evidence(out, "/run/nvidia/driver/usr/bin/nvidia-smi (the GPU Operator's driver container root): %s; /usr/bin/nvidia-smi (a host install): %s",
			     presence(&p->driver_root), presence(&p->host_smi)));
	if (fact_ok(&p->validated_host_driver))
		TRY(finding_evidence(out, "/run/nvidia/validations/driver-ready: IS_HOST_DRIVER=%s, NVIDIA_DRIVER_ROOT=%s",
				     p->validated_host_driver.v ? "true" : "false",
				     fact_str_ok(&p->validated_driver_root) ? p->validated_driver_root.v : "?"));
	pc = precompiled_for(f, m, kver, sizeof(kver), flavor, sizeof(flavor));
	if (pc)
		snprintf(pcdesc, sizeof(pcdesc), "%s %s %s %s kernels (branches %s; NGC lists the exact kernels)",
			 f->host.os_id.v, f->host.os_version_id.v, flavor, kver, pc->branches);
	TRY(finding_evidence(out, "precompiled driver images (GPU Operator %s table, page of %s): %s%s (%s)",
			     m->major, m->date, pc ? "published for " : "none for this kernel on ",
			     pc ? pcdesc : f->host.os_id.v, SRC_PRECOMP));
	build_needs(f, m, *ver ? ver : "<version>", need, sizeof(need), fix, sizeof(fix));
	if (src == SRC_HOST) {
		TRY(finding_evidence(out, "kernel-devel for %s (/lib/modules/%s/build): %s", krel, krel,
				     fact_ok(&p->kernel_devel) ? "installed" :
				     p->kernel_devel.state == FACT_UNSET ? "not collected" : "not installed"));
		return finding_set(out, ST_INFO, "the NVIDIA driver%s%s is installed on the host, not by the GPU Operator (which then runs with driver.enabled=false); after a kernel update the host's driver packages must provide the module for the new kernel",
				   *ver ? " " : "", ver);
	}
	if (pc) {
		char rb[16];
		int ex = branch;

		/* The example tag uses the running branch only when the table lists it. */
		snprintf(rb, sizeof(rb), "R%d", branch);
		if (branch <= 0 || !strstr(pc->branches, rb))
			ex = atoi(pc->branches + 1);
		driver_os_tag(f, m, tag, sizeof(tag));
		if (branch > 0 && ex != branch)
			snprintf(rb, sizeof(rb), "R%d", branch);
		else
			rb[0] = '\0';
		TRY(finding_evidence(out, "precompiled image: driver:<branch>-%s-%s (for example %d-%s-%s), no kernel packages and no package mirror needed; mirror that image%s%s%s",
				     krel, tag, ex, krel, tag, *rb ? "; the running " : "", rb,
				     *rb ? " is not among the table's branches" : ""));
	} else {
		TRY(finding_evidence(out, "%s (%s; %s)", need, SRC_DRIVER_CTR, SRC_AIRGAP));
	}
	if (src == SRC_CONTAINER && loaded)
		return finding_set(out, ST_PASS, "the GPU Operator's driver container built and loaded nvidia %s for kernel %s%s",
				   ver, krel, pc ? " (NVIDIA publishes precompiled images for this kernel's flavour and version)" :
				   "; after a kernel update it compiles again, so the same packages must be there for the new kernel");
	if (src == SRC_CONTAINER) {
		TRY(finding_set(out, ST_WARN, "the GPU Operator's driver container is on the node but nvidia is not loaded: its build or load failed%s",
				pc ? "" : " (it compiles the module for this kernel)"));
		return finding_fix(out, "kubectl logs -n gpu-operator -l app=nvidia-driver-daemonset -c nvidia-driver-ctr; %s",
				   pc ? "with a precompiled image, --set driver.usePrecompiled=true --set driver.version=<branch>" : fix);
	}
	if (src == SRC_UNSEEN && p->driver_root.state == FACT_UNSET && p->host_smi.state == FACT_UNSET)
		return finding_set(out, ST_INFO, "nvidia %s is loaded for kernel %s; where it came from was not collected (facts without host.platform)",
				   ver, krel);
	if (src == SRC_UNSEEN)
		return finding_set(out, ST_INFO, "nvidia %s is loaded for kernel %s, but neither the GPU Operator's driver root (/run/nvidia/driver) nor a host install (/usr/bin/nvidia-smi) is visible; %s",
				   ver, krel, pc ? "NVIDIA publishes precompiled driver images for this kernel's flavour and version" :
				   "if the GPU Operator provides it, its driver container compiles it at every start");
	/* No driver yet: what the GPU Operator will need. */
	if (pc) {
		TRY(finding_set(out, ST_INFO, "no NVIDIA driver yet; NVIDIA publishes precompiled driver images for %s: with one the GPU Operator needs no kernel packages",
				pcdesc));
		return finding_fix(out, "--set driver.usePrecompiled=true --set driver.version=<branch> (precompiled tag driver:<branch>-%s-%s, if NGC lists it for this exact kernel)",
				   krel, tag);
	}
	TRY(finding_set(out, ST_UNKNOWN, "no NVIDIA driver yet: the GPU Operator's driver container will compile it for kernel %s (no precompiled driver image for %s); whether the repositories it reaches serve that kernel's packages cannot be read from the node",
			krel, f->host.os_id.v));
	return finding_fix(out, "%s", fix);
}

const struct check check_gpu_driver_build = {
	"gpu.driver-build", GATE_GPU,
	"who builds the NVIDIA driver for the running kernel: a precompiled image, the GPU Operator's driver container (kernel-devel, package and image mirrors) or the host",
	driver_build,
	.fix = { .phase = POC_GPU_OPERATOR },
};

/* gpu.support-matrix ------------------------------------------------- */

/* Which operator tables list the OS, for the evidence and the verdict. */
static int listing_evidence(struct finding *out, const struct facts *f,
			    char *listed, size_t size)
{
	size_t n;
	const struct operator_matrix *ops = matrix_operators(&n);

	listed[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct matrix_os *row = matrix_os_row(&ops[i], f->host.os_id.v,
							    f->host.os_version_id.v);

		TRY(finding_evidence(out, "GPU Operator %s (%s, page of %s, %s): %s",
				     ops[i].major, ops[i].page, ops[i].date, ops[i].status,
				     row ? "lists it" : "does not list it"));
		if (row)
			snprintf(listed + strlen(listed), size - strlen(listed),
				 "%s%s (Kubernetes 1.%d-1.%d)", *listed ? ", " : "",
				 ops[i].major, row->k8s_min, row->k8s_max);
	}
	return 0;
}

static int support_matrix(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const char *opv = ctx->opts->gpu_operator_version, *k8s = ctx->opts->k8s_version;
	const struct operator_matrix *m;
	const struct matrix_os *row;
	char os[96], listed[512], major[16], vers[128];
	int minor;

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	if (!fact_str_ok(&f->host.os_id) || !fact_str_ok(&f->host.os_version_id))
		return finding_set(out, ST_INFO, "support unknown: /etc/os-release could not be read, so the OS release is not known");
	host_os_name(f, os, sizeof(os));
	TRY(finding_evidence(out, "OS: %s (/etc/os-release); Kubernetes: %s; GPU Operator: %s",
			     os, k8s ? k8s : "not given (--k8s-version)",
			     opv ? opv : "not given (--gpu-operator-version)"));
	TRY(listing_evidence(out, f, listed, sizeof(listed)));
	if (!*listed) {
		TRY(finding_set(out, ST_WARN, "%s is in none of NVIDIA's GPU Operator support tables gdrcheck holds (25.3 to 26.7, pages up to 2026-08-21)",
				os));
		return finding_fix(out, "run an OS release the GPU Operator's platform support page lists for the operator version you install");
	}
	if (!opv || !k8s)
		return finding_set(out, ST_INFO, "support unknown: the Kubernetes and GPU Operator versions are not node facts (give --k8s-version and --gpu-operator-version); %s is listed by GPU Operator %s",
				   os, listed);
	if (matrix_operator_major(opv, major, sizeof(major)) < 0 ||
	    (minor = matrix_k8s_minor(k8s)) < 0)
		return finding_set(out, ST_INFO, "support unknown: '%s' or '%s' is not a version", opv, k8s);
	m = matrix_operator(major);
	if (!m)
		return finding_set(out, ST_INFO, "support unknown: GPU Operator %s is not in gdrcheck's tables (25.3, 25.10, 26.3, 26.7; pages up to 2026-08-21); %s is listed by %s",
				   major, os, listed);
	row = matrix_os_row(m, f->host.os_id.v, f->host.os_version_id.v);
	if (!row) {
		TRY(finding_set(out, ST_WARN, "%s is not in NVIDIA's support table for GPU Operator %s; it is listed by %s",
				os, m->major, listed));
		return finding_fix(out, "install a GPU Operator version whose table lists %s (%s), or an OS release GPU Operator %s lists",
				   os, listed, m->major);
	}
	matrix_versions_text(row->versions, vers, sizeof(vers));
	if (minor < row->k8s_min || minor > row->k8s_max) {
		TRY(finding_set(out, ST_WARN, "Kubernetes 1.%d is outside 1.%d-1.%d, what GPU Operator %s lists for %s %s",
				minor, row->k8s_min, row->k8s_max, m->major, row->name, vers));
		return finding_fix(out, "run Kubernetes 1.%d-1.%d with GPU Operator %s, or a GPU Operator version that lists Kubernetes 1.%d for %s",
				   row->k8s_min, row->k8s_max, m->major, minor, os);
	}
	if (startswith(m->status, "end of support")) {
		TRY(finding_set(out, ST_WARN, "%s + Kubernetes 1.%d is in GPU Operator %s's table, but %s has reached %s",
				os, minor, m->major, m->major, m->status));
		return finding_fix(out, "upgrade to a supported GPU Operator version (26.7 lists %s: %s)",
				   os, listed);
	}
	return finding_set(out, ST_PASS, "%s + Kubernetes 1.%d + GPU Operator %s: listed by NVIDIA (%s %s, Kubernetes 1.%d-1.%d; page of %s; %s is %s)",
			   os, minor, opv, row->name, vers, row->k8s_min, row->k8s_max,
			   m->date, m->major, m->status);
}

const struct check check_gpu_support_matrix = {
	"gpu.support-matrix", GATE_GPU,
	"the OS release, Kubernetes and GPU Operator versions against NVIDIA's platform support tables",
	support_matrix,
	.fix = { .phase = POC_GPU_OPERATOR },
};

/* direct.validated --------------------------------------------------- */

/* The Network Operator versions the GPUDirect RDMA list pairs with the OS. */
static void gdr_listing(const struct facts *f, char *buf, size_t size)
{
	const char *src;
	size_t n;
	const struct matrix_gdr *g = matrix_gdr(&n, &src);

	buf[0] = '\0';
	if (!fact_str_ok(&f->host.os_id) || !fact_str_ok(&f->host.os_version_id))
		return;
	for (size_t i = 0; i < n; i++) {
		bool hit = false;

		if (strcmp(g[i].id, f->host.os_id.v) != 0)
			continue;
		for (size_t k = 0; k < MATRIX_MAX_VERSIONS && g[i].versions[k]; k++)
			hit = hit || matrix_version_listed(g[i].versions[k], f->host.os_version_id.v);
		if (hit && !strstr(buf, g[i].network_operator))
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
				 *buf ? ", " : "", g[i].network_operator);
	}
}

/* gdrcheck probe registered GPU memory on @nic: the path that worked, or NULL. */
static const char *probed_path(const struct facts *f, const struct rdma_dev *nic)
{
	for (size_t i = 0; i < f->probe.n_pairs; i++) {
		const struct probe_pair *pp = &f->probe.pairs[i];

		if (strcmp(pp->nic, nic->name) != 0)
			continue;
		if (pp->dmabuf.outcome == PROBE_WORKS)
			return "dma-buf";
		if (pp->peermem.outcome == PROBE_WORKS)
			return "nvidia-peermem";
	}
	return NULL;
}

static int validated(const struct check_ctx *ctx, struct finding *out)
{
	const struct facts *f = ctx->f;
	const char *src, *host = fact_str_ok(&f->host.hostname) ? f->host.hostname.v : "<this node>";
	char os[96] = "the OS", netop[64], subj[128], fix[256];
	bool os_known = fact_str_ok(&f->host.os_id) && fact_str_ok(&f->host.os_version_id);
	size_t n;

	if (!f->n_gpus)
		return finding_set(out, ST_SKIP, "no NVIDIA GPU");
	if (!f->n_nics)
		return finding_set(out, ST_SKIP, "no RDMA device");
	(void)matrix_gdr(&n, &src);
	if (os_known)
		host_os_name(f, os, sizeof(os));
	gdr_listing(f, netop, sizeof(netop));
	TRY(finding_evidence(out, "%s: NVIDIA validates GPUDirect RDMA per OS with its Network Operator, whose supported adapters are NVIDIA ConnectX NICs and SuperNICs and BlueField platforms (Mellanox/network-operator-docs docs/platform-support.rst, v26.1.0)",
			     src));
	TRY(finding_evidence(out, "%s in that list: %s", os,
			     !os_known ? "unknown (/etc/os-release not read)" :
			     *netop ? netop : "no"));
	snprintf(fix, sizeof(fix), "gdrcheck probe on %s (GPU memory registered on the NIC), then gdrcheck bw server on %s and gdrcheck bw client %s on its RDMA peer (bytes at line rate)",
		 host, host, host);
	for (size_t i = 0; i < f->n_nics; i++) {
		const struct rdma_dev *d = &f->nics[i];
		const struct nic_kind_info *k = nic_kind_of(f, d);
		const char *path;

		nic_subject(d, subj, sizeof(subj));
		if (k->kind == NIC_MLX5) {
			if (!os_known)
				TRY(finding_item(out, subj, ST_INFO, NULL, "%s, NVIDIA's own NIC; the OS could not be read to match NVIDIA's GPUDirect RDMA list",
						 k->family));
			else if (*netop)
				TRY(finding_item(out, subj, ST_PASS, NULL, "%s on %s: in NVIDIA's validated GPUDirect RDMA matrix (Network Operator %s)",
						 k->family, os, netop));
			else
				TRY(finding_item(out, subj, ST_WARN, fix, "%s, but %s is not in NVIDIA's GPUDirect RDMA list: gdrcheck probe and gdrcheck bw decide",
						 k->family, os));
			continue;
		}
		path = probed_path(f, d);
		if (path)
			TRY(finding_item(out, subj, ST_INFO, NULL, "%s is outside NVIDIA's validated GPUDirect RDMA matrix; gdrcheck probe registered GPU memory on it (%s): gdrcheck bw proves the transfers",
					 k->family, path));
		else
			TRY(finding_item(out, subj, ST_WARN, fix, "%s is outside NVIDIA's validated GPUDirect RDMA matrix (ConnectX/BlueField only): gdrcheck probe and gdrcheck bw are the gate for it",
					 k->family));
	}
	TRY(finding_conclude(out, f->n_nics, "every RDMA NIC is in NVIDIA's validated GPUDirect RDMA matrix"));
	return finding_fix_from_items(out, false);
}

const struct check check_direct_validated = {
	"direct.validated", GATE_DIRECT,
	"NIC and OS against NVIDIA's validated GPUDirect RDMA matrix; outside it, gdrcheck probe and bw decide",
	validated,
	.fix = { .phase = POC_GPUDIRECT, .action = FIX_TEST },
};
