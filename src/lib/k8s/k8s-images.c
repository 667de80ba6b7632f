/* SPDX-License-Identifier: MIT */
#include "k8s-images.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../checks/checks-platform.h"
#include "../checks/platform-matrix.h"
#include "../util/strutil.h"
#include "../util/strv.h"

#define NVIDIA_HELM_REPO "https://helm.ngc.nvidia.com/nvidia"
#define GPU_NAMESPACE "gpu-operator"

/* Release lookup ------------------------------------------------------ */

/* "v26.3.3" -> 26, 3, 3; a missing part is -1. */
static void version_parts(const char *v, int p[3])
{
	p[0] = p[1] = p[2] = -1;
	if (v && (*v == 'v' || *v == 'V'))
		v++;
	if (v)
		sscanf(v, "%d.%d.%d", &p[0], &p[1], &p[2]);
}

static int version_cmp(const char *a, const char *b)
{
	int x[3], y[3];

	version_parts(a, x);
	version_parts(b, y);
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

const struct helm_release *helm_release_find(const char *chart, const char *version)
{
	const struct helm_release *best = NULL;
	int want[3];

	version_parts(version, want);
	if (version && (want[0] < 0 || want[1] < 0))
		return NULL;
	for (size_t i = 0; i < helm_n_releases; i++) {
		const struct helm_release *r = &helm_releases[i];
		int have[3];

		if (strcmp(r->chart, chart) != 0)
			continue;
		version_parts(r->version, have);
		if (version && (have[0] != want[0] || have[1] != want[1] ||
				(want[2] >= 0 && have[2] != want[2])))
			continue;
		if (!best || version_cmp(r->version, best->version) > 0)
			best = r;
	}
	return best;
}

void helm_release_versions(const char *chart, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < helm_n_releases && n < size; i++)
		if (strcmp(helm_releases[i].chart, chart) == 0)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      helm_releases[i].version);
}

static const struct helm_image *release_image(const struct helm_release *r, const char *key)
{
	for (size_t i = 0; r && i < r->n_images; i++)
		if (strcmp(r->images[i].key, key) == 0)
			return &r->images[i];
	return NULL;
}

/* The list -------------------------------------------------------------- */

struct images_ctx {
	struct k8s_images *l;
	int err;
};

static int set_str(char **dst, char *s)
{
	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/*
 * Add @ref, pulled (@enable NULL) or optional. An image several operands
 * use is one entry naming them all; an optional use of an image the install
 * pulls anyway adds nothing to mirror.
 */
static void add(struct images_ctx *c, const char *ref, const char *key,
		const struct helm_release *release, const char *object, const char *why,
		const char *enable)
{
	struct k8s_images *l = c->l;
	struct k8s_image *img = NULL, *grown;

	if (c->err)
		return;
	for (size_t i = 0; i < l->n_images; i++)
		if (strcmp(l->images[i].ref, ref) == 0)
			img = &l->images[i];
	if (img && enable && !img->enable)
		return;
	if (img && !enable && img->enable) {
		/* Pulled after all: what pulls it is what to say. */
		if (set_str(&img->keys, strdup(key)) < 0 || set_str(&img->why, strdup(why)) < 0)
			c->err = -ENOMEM;
		free(img->enable);
		img->enable = NULL;
		return;
	}
	if (img) {
		if (set_str(&img->keys, xasprintf("%s, %s", img->keys, key)) < 0 ||
		    set_str(&img->why, xasprintf("%s; %s", img->why, why)) < 0)
			c->err = -ENOMEM;
		return;
	}
	grown = realloc(l->images, (l->n_images + 1) * sizeof(*grown));
	if (!grown) {
		c->err = -ENOMEM;
		return;
	}
	l->images = grown;
	img = &l->images[l->n_images++];
	*img = (struct k8s_image){
		.ref = strdup(ref),
		.keys = strdup(key),
		.release = release,
		.object = object,
		.why = strdup(why),
		.enable = enable ? strdup(enable) : NULL,
	};
	if (!img->ref || !img->keys || !img->why || (enable && !img->enable))
		c->err = -ENOMEM;
}

/* A line of program text into @v: a warning or a command. */
static void pushf(struct images_ctx *c, char ***v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void pushf(struct images_ctx *c, char ***v, const char *fmt, ...)
{
	va_list ap;

	if (c->err)
		return;
	va_start(ap, fmt);
	if (strv_pushv(v, fmt, ap) < 0)
		c->err = -ENOMEM;
	va_end(ap);
}

#define warn(c, ...) pushf((c), &(c)->l->warnings, __VA_ARGS__)
#define command(c, ...) pushf((c), &(c)->l->commands, __VA_ARGS__)

/* An image of the table: pulled when the chart's defaults deploy it, else optional. */
static void add_row(struct images_ctx *c, const struct helm_image *h, const char *suffix,
		    const struct helm_release *release, const char *why)
{
	char ref[256], enable[128];
	const char *dot = strchr(h->key, '.');

	snprintf(ref, sizeof(ref), "%s:%s%s%s", h->ref, h->tag, suffix ? "-" : "",
		 suffix ? suffix : "");
	snprintf(enable, sizeof(enable), "%.*s.enabled=true",
		 dot ? (int)(dot - h->key) : (int)strlen(h->key), h->key);
	add(c, ref, h->key, release, NULL, why, h->enabled ? NULL : enable);
}

/* A boolean of the plan's values for @chart at dotted @key; -1 when unset. */
static int plan_bool(const struct k8s_plan *p, const char *chart, const char *key)
{
	for (size_t i = 0; i < p->n_values; i++) {
		json_object *o = p->values[i].values;
		char buf[128], *save = NULL;

		if (strcmp(p->values[i].chart, chart) != 0)
			continue;
		snprintf(buf, sizeof(buf), "%s", key);
		for (char *part = strtok_r(buf, ".", &save); part && o;
		     part = strtok_r(NULL, ".", &save))
			if (!json_object_object_get_ex(o, part, &o))
				o = NULL;
		return o && json_object_is_type(o, json_type_boolean) ? json_object_get_boolean(o) :
									-1;
	}
	return -1;
}

/*
 * The GPU Operator's operands on a bare-metal node in ClusterPolicy mode
 * (NVIDIA/gpu-operator controllers/state_manager.go addState,
 * isStateEnabled): the sandbox, vGPU, Kata and confidential-computing
 * operands run only with sandboxWorkloads.enabled and are not listed.
 */
static const struct {
	const char *key;
	bool os_suffix; /* resolveDriverTag appends -<os tag> (object_controls.go) */
	const char *why;
} gpu_operands[] = {
	{ "operator", false, "the operator Deployment, and the chart's CRD upgrade hook" },
	{ "validator", false,
	  "nvidia-operator-validator and the validation init containers of the operand pods" },
	{ "node-feature-discovery", false,
	  "NFD master, worker and gc: the node labels the operator schedules on (nfd.enabled)" },
	{ "driver", true,
	  "the driver DaemonSet: builds and loads the module on the node when it starts (nvidia-peermem runs from it too with driver.rdma.enabled)" },
	{ "driver.manager", false, "k8s-driver-manager, the driver pod's init container" },
	{ "toolkit", false, "the NVIDIA Container Toolkit DaemonSet" },
	{ "devicePlugin", false, "the device plugin (and its MPS control daemon)" },
	{ "gfd", false, "GPU Feature Discovery" },
	{ "dcgmExporter", false, "dcgm-exporter: the GPU metrics" },
	{ "migManager", false, "the MIG manager, scheduled only on nodes GFD labels MIG-capable" },
	{ "dcgm", false, "a standalone DCGM host engine" },
	{ "nodeStatusExporter", false, "the node status exporter" },
	{ "gds", true, "nvidia-fs (GPUDirect Storage), a container of the driver pod" },
	{ "gdrcopy", true, "gdrdrv (GDRCopy), a container of the driver pod" },
};

static void gpu_operator_images(struct images_ctx *c, const struct facts *f,
				const struct k8s_plan *plan)
{
	struct k8s_images *l = c->l;
	char drv[128];
	bool host = gpu_driver_on_host(f);

	for (size_t i = 0; i < sizeof(gpu_operands) / sizeof(gpu_operands[0]); i++) {
		const struct helm_image *h = release_image(l->gpu, gpu_operands[i].key);
		bool driver = startswith(gpu_operands[i].key, "driver");

		if (!h)
			continue;
		if (driver && host)
			continue;
		if (gpu_operands[i].os_suffix && !l->os_tag[0]) {
			warn(c,
			     "%s: its tag is %s-<os> for the node's OS, which the input does not give (/etc/os-release)",
			     h->key, h->tag);
			continue;
		}
		add_row(c, h, gpu_operands[i].os_suffix ? l->os_tag : NULL, l->gpu,
			gpu_operands[i].why);
	}
	if (host)
		warn(c,
		     "the NVIDIA driver is installed on the host: the operator runs with driver.enabled=false and pulls no driver image");
	if (plan_bool(plan, "gpu-operator", "driver.rdma.enabled") == 1 &&
	    plan_bool(plan, "gpu-operator", "driver.rdma.useHostMofed") != 1)
		warn(c,
		     "driver.rdma.enabled without driver.rdma.useHostMofed: nvidia-peermem then waits for the Network Operator's DOCA driver container (NicClusterPolicy ofedDriver), whose image this list does not hold");
	if (!host && l->os_tag[0] && fact_str_ok(&f->host.os_id) &&
	    strcmp(f->host.os_id.v, "ubuntu") == 0) {
		const struct helm_image *h = release_image(l->gpu, "driver");

		snprintf(drv, sizeof(drv), "%s", h ? h->ref : "nvcr.io/nvidia/driver");
		warn(c,
		     "with driver.usePrecompiled=true the driver image is %s:<branch>-<kernel>-%s instead, where NVIDIA publishes one for the node's kernel (gpu.driver-build)",
		     drv, l->os_tag);
	}
}

static void network_operator_images(struct images_ctx *c, const struct k8s_plan *plan, bool nfd)
{
	const struct helm_release *r = c->l->net;
	bool sriov = plan->mode == K8S_MODE_SRIOV;

	for (size_t i = 0; i < r->n_images; i++) {
		const struct helm_image *h = &r->images[i];

		if (strcmp(h->key, "operator") == 0) {
			add_row(c, h, NULL, r, "the Network Operator Deployment");
		} else if (strcmp(h->key, "node-feature-discovery") == 0) {
			if (nfd)
				add_row(c, h, NULL, r,
					"NFD master and worker (nfd.enabled), for both operators");
		} else if (startswith(h->key, "sriov-network-operator.images.")) {
			/* The operator picks among its list at run time: mirror it whole. */
			if (sriov)
				add_row(c, &(struct helm_image){ h->key, h->ref, h->tag, true },
					NULL, r,
					"the SR-IOV Network Operator's image list (sriovNetworkOperator.enabled)");
		}
	}
}

/* Every image the plan's own objects name: containers, and NicClusterPolicy components. */
static void plan_object_images(struct images_ctx *c, json_object *o, const char *kind)
{
	json_object *repo, *image, *version, *name;

	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			plan_object_images(c, json_object_array_get_idx(o, i), kind);
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	if (json_object_object_get_ex(o, "repository", &repo) &&
	    json_object_object_get_ex(o, "image", &image) &&
	    json_object_object_get_ex(o, "version", &version)) {
		char ref[256], why[96];

		snprintf(ref, sizeof(ref), "%s/%s:%s", json_object_get_string(repo),
			 json_object_get_string(image), json_object_get_string(version));
		snprintf(why, sizeof(why), "a component of the %s gdrcheck k8s prints", kind);
		add(c, ref, json_object_get_string(image), NULL, kind, why, NULL);
	} else if (json_object_object_get_ex(o, "image", &image) &&
		   json_object_is_type(image, json_type_string) &&
		   json_object_object_get_ex(o, "name", &name)) {
		char why[96];

		snprintf(why, sizeof(why), "a container of the %s gdrcheck k8s prints", kind);
		add(c, json_object_get_string(image), json_object_get_string(name), NULL, kind, why,
		    NULL);
	}
	json_object_object_foreach(o, key, val) {
		(void)key;
		plan_object_images(c, val, kind);
	}
}

/* Kinds as static strings: sources outlive the plan's objects. */
static const char *const object_kinds[] = { "NicClusterPolicy", "DaemonSet", "Deployment" };

static void plan_images(struct images_ctx *c, const struct k8s_plan *plan)
{
	for (size_t i = 0; i < plan->n_docs; i++) {
		json_object *kind;

		if (!json_object_object_get_ex(plan->docs[i].obj, "kind", &kind))
			continue;
		for (size_t k = 0; k < sizeof(object_kinds) / sizeof(object_kinds[0]); k++)
			if (strcmp(json_object_get_string(kind), object_kinds[k]) == 0)
				plan_object_images(c, plan->docs[i].obj, object_kinds[k]);
	}
	if (plan->install == K8S_INSTALL_STANDALONE && plan->mode != K8S_MODE_HOSTNETWORK)
		warn(c,
		     "Multus and whereabouts (standalone): their own manifests name their images, which this list does not hold");
}

static void helm_commands(struct images_ctx *c, const struct k8s_plan *plan, bool gpu)
{
	const struct helm_release *g = gpu ? c->l->gpu : NULL, *n = c->l->net;

	command(c, "helm repo add nvidia " NVIDIA_HELM_REPO " && helm repo update");
	if (n)
		command(c, "helm pull nvidia/network-operator --version %s", n->version);
	if (g)
		command(c, "helm pull nvidia/gpu-operator --version %s", g->version);
	/* The GPU Operator first: its NFD brings the CRDs the Network Operator's NodeFeatureRule needs. */
	if (g)
		command(c,
			"helm install gpu-operator gpu-operator-%s.tgz --namespace " GPU_NAMESPACE
			" --create-namespace --values gpu-operator-values.yaml",
			g->version);
	if (n)
		command(c,
			"helm install network-operator network-operator-%s.tgz --namespace %s --create-namespace --values network-operator-values.yaml%s",
			n->version, plan->ns, g ? " --set nfd.enabled=false" : "");
	if (plan->install == K8S_INSTALL_STANDALONE && plan->n_docs)
		command(c,
			"gdrcheck k8s --mode %s --install standalone > gdrcheck-k8s.yaml (its images set to the mirror); kubectl apply -f gdrcheck-k8s.yaml",
			k8s_mode_name(plan->mode));
}

int k8s_images_build(const struct facts *f, const struct k8s_plan *plan, const char *chart,
		     const char *gpu_version, struct k8s_images *ret)
{
	struct images_ctx c = { .l = ret };
	bool gpu = strcmp(chart, "gpu-operator") == 0;

	*ret = (struct k8s_images){ 0 };
	if (gpu) {
		ret->gpu = helm_release_find("gpu-operator", gpu_version);
		if (!ret->gpu)
			return -ENOENT;
		ret->gpu_latest = !gpu_version;
		if (gpu_operator_os_tag(f, ret->gpu->version, ret->os_tag, sizeof(ret->os_tag)) < 0)
			ret->os_tag[0] = '\0';
	}
	if (plan->install == K8S_INSTALL_OPERATOR)
		ret->net = helm_release_find("network-operator", NULL);
	if (gpu)
		gpu_operator_images(&c, f, plan);
	if (ret->net) {
		/*
		 * One NFD per cluster: the GPU Operator's, which lists network
		 * devices too (class 02), where it is installed; the Network
		 * Operator's only where its values (gdrcheck k8s --helm-values
		 * network-operator) keep it.
		 */
		bool nfd = !gpu && plan_bool(plan, "network-operator", "nfd.enabled") != 0;

		if (!nfd)
			warn(&c,
			     "node-feature-discovery: the GPU Operator's NFD serves the cluster, so the Network Operator is installed with nfd.enabled=false and its NFD image is not listed (one NFD per cluster: network-operator README, \"Deploy Network Operator without Node Feature Discovery\")");
		network_operator_images(&c, plan, nfd);
	}
	plan_images(&c, plan);
	helm_commands(&c, plan, gpu);
	return c.err;
}

void k8s_images_release(struct k8s_images *l)
{
	for (size_t i = 0; i < l->n_images; i++) {
		free(l->images[i].ref);
		free(l->images[i].keys);
		free(l->images[i].why);
		free(l->images[i].enable);
	}
	free(l->images);
	strv_free(l->warnings);
	strv_free(l->commands);
	*l = (struct k8s_images){ 0 };
}
