/* SPDX-License-Identifier: MIT */
#include "render-fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render-yaml.h"

/*
 * The test plan as deploy/bw/bw-job.yaml's objects, filled in for each step:
 * the same Service, server Job and client Job, the same security context
 * (uid 0 for IPC_LOCK in the effective set, every other capability
 * dropped), pinned to the step's nodes by kubernetes.io/hostname, with the
 * node's RDMA resource and network, its GPUs when the step uses GPU memory,
 * and the step's NIC and GPU as arguments. Each document is built, written
 * and freed in turn.
 */

#define BW_PORT 18515

static json_object *s(const char *v)
{
	return json_object_new_string(v);
}

static void set(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *obj(void)
{
	return json_object_new_object();
}

/* metadata with a name and the step's labels. */
static json_object *meta(const char *name, size_t step, const char *component)
{
	json_object *m = obj(), *l = obj();
	char n[32];

	snprintf(n, sizeof(n), "%zu", step);
	set(m, "name", s(name));
	set(l, "app.kubernetes.io/name", s("gdrcheck-bw"));
	set(l, "app.kubernetes.io/instance", s(name));
	set(l, "gdrcheck.io/bw-step", s(n));
	if (component)
		set(l, "app.kubernetes.io/component", s(component));
	set(m, "labels", l);
	return m;
}

static json_object *service(const char *base, size_t step)
{
	json_object *o = obj(), *spec = obj(), *sel = obj(), *ports = json_object_new_array();
	json_object *p = obj();
	char inst[96];

	snprintf(inst, sizeof(inst), "%s-server", base);
	set(o, "apiVersion", s("v1"));
	set(o, "kind", s("Service"));
	set(o, "metadata", meta(base, step, NULL));
	set(spec, "clusterIP", s("None"));
	set(sel, "app.kubernetes.io/instance", s(inst));
	set(spec, "selector", sel);
	set(p, "name", s("oob"));
	set(p, "port", json_object_new_int(BW_PORT));
	set(p, "targetPort", json_object_new_int(BW_PORT));
	set(p, "protocol", s("TCP"));
	json_object_array_add(ports, p);
	set(spec, "ports", ports);
	set(o, "spec", spec);
	return o;
}

static json_object *container(const struct fleet *fl, const struct fleet_step *st, bool server,
			      const char *base, const char *image)
{
	size_t nn;
	const struct fleet_node *n = &fleet_nodes(fl, &nn)[server ? st->server : st->client];
	json_object *c = obj(), *args = json_object_new_array(), *sc = obj(), *caps = obj();
	json_object *res = obj(), *lim = obj(), *add = json_object_new_array(),
		    *drop = json_object_new_array();
	const char *argv[FLEET_ARGV_MAX];
	size_t argc = fleet_step_argv(fl, st, server, argv);
	char addr[128], port[16];
	int gpu = server ? st->server_gpu : st->client_gpu;

	snprintf(port, sizeof(port), "%d", BW_PORT);
	set(c, "name", s("gdrcheck"));
	set(c, "image", s(image));
	/* argv minus "gdrcheck" (the image's entrypoint); the client dials the Service. */
	for (size_t i = 1; i < argc; i++) {
		if (!server && i == 3) {
			snprintf(addr, sizeof(addr), "%s:%d", base, BW_PORT);
			json_object_array_add(args, s(addr));
			continue;
		}
		json_object_array_add(args, s(argv[i]));
	}
	if (server) {
		json_object_array_add(args, s("--port"));
		json_object_array_add(args, s(port));
	} else {
		json_object_array_add(args, s("--sizes"));
		json_object_array_add(args, s("64K:8M"));
		json_object_array_add(args, s("--iters"));
		json_object_array_add(args, s("5000"));
	}
	json_object_array_add(args, s("--timeout"));
	json_object_array_add(args, s("60"));
	set(c, "args", args);
	if (server) {
		json_object *ports = json_object_new_array(), *p = obj();

		set(p, "name", s("oob"));
		set(p, "containerPort", json_object_new_int(BW_PORT));
		set(p, "protocol", s("TCP"));
		json_object_array_add(ports, p);
		set(c, "ports", ports);
	}
	set(sc, "runAsUser", json_object_new_int(0));
	set(sc, "runAsGroup", json_object_new_int(0));
	set(sc, "allowPrivilegeEscalation", json_object_new_boolean(0));
	json_object_array_add(drop, s("ALL"));
	json_object_array_add(add, s("IPC_LOCK"));
	set(caps, "drop", drop);
	set(caps, "add", add);
	set(sc, "capabilities", caps);
	set(c, "securityContext", sc);
	/* --gpu names a PCI address: the pod gets every GPU so that one is among them. */
	if (gpu >= 0 && n->n_gpus)
		set(lim, "nvidia.com/gpu", json_object_new_int64(n->n_gpus));
	set(lim, fleet_str(fl, n->resource), json_object_new_int(1));
	set(res, "limits", lim);
	set(c, "resources", res);
	return c;
}

static json_object *job(const struct fleet *fl, const struct fleet_step *st, size_t step,
			bool server, const char *base, const char *image)
{
	size_t nn;
	const struct fleet_node *n = &fleet_nodes(fl, &nn)[server ? st->server : st->client];
	json_object *o = obj(), *spec = obj(), *tpl = obj(), *pspec = obj(), *sel = obj();
	json_object *cs = json_object_new_array(), *tmeta;
	char name[96];

	snprintf(name, sizeof(name), "%s-%s", base, server ? "server" : "client");
	set(o, "apiVersion", s("batch/v1"));
	set(o, "kind", s("Job"));
	set(o, "metadata", meta(name, step, server ? "server" : "client"));
	/* The client retries until its server listens. */
	set(spec, "backoffLimit", json_object_new_int(server ? 0 : 6));
	set(spec, "activeDeadlineSeconds", json_object_new_int(3600));
	set(spec, "ttlSecondsAfterFinished", json_object_new_int(3600));
	tmeta = meta(name, step, server ? "server" : "client");
	json_object_object_del(tmeta, "name");
	if (fleet_str(fl, n->network) && !n->host_network) {
		json_object *ann = obj();

		set(ann, "k8s.v1.cni.cncf.io/networks", s(fleet_str(fl, n->network)));
		set(tmeta, "annotations", ann);
	}
	set(tpl, "metadata", tmeta);
	set(pspec, "restartPolicy", s("Never"));
	if (n->host_network) {
		set(pspec, "hostNetwork", json_object_new_boolean(1));
		set(pspec, "dnsPolicy", s("ClusterFirstWithHostNet"));
	}
	set(sel, "kubernetes.io/hostname", s(fleet_str(fl, n->name)));
	set(pspec, "nodeSelector", sel);
	json_object_array_add(cs, container(fl, st, server, base, image));
	set(pspec, "containers", cs);
	set(tpl, "spec", pspec);
	set(spec, "template", tpl);
	set(o, "spec", spec);
	return o;
}

static int emit(FILE *out, json_object *o, char *const *comments)
{
	int r = o ? render_yaml_doc(out, o, comments) : -ENOMEM;

	json_object_put(o);
	return r;
}

int render_fleet_jobs(FILE *out, const struct fleet *fl, const struct fleet_result *res,
		      const char *image)
{
	int r = 0;

	for (size_t i = 0; i < res->n_plan && r >= 0; i++) {
		const struct fleet_step *st = &res->plan[i];
		char base[48], c0[160], c1[200];
		char *comments[] = { c0, c1, NULL };

		snprintf(base, sizeof(base), "gdrcheck-bw-%zu", i + 1);
		snprintf(c0, sizeof(c0), "step %zu of %zu, phase %s: %s", i + 1, res->n_plan,
			 st->phase == FLEET_PHASE_HOST ? "6 (host-to-host RoCE, host memory)" :
							 "17/19 (GPU memory)",
			 st->peer ? "a GPU node against a storage peer" : "GPU nodes in a ring");
		if (i)
			snprintf(
				c1, sizeof(c1),
				"apply once step %zu's client Job has completed; kubectl logs job/%s-client is the report",
				i, base);
		else
			snprintf(c1, sizeof(c1), "kubectl logs job/%s-client is the report", base);
		r = emit(out, service(base, i + 1), comments);
		if (r >= 0)
			r = emit(out, job(fl, st, i + 1, true, base, image), NULL);
		if (r >= 0)
			r = emit(out, job(fl, st, i + 1, false, base, image), NULL);
	}
	return r < 0 ? r : ferror(out) ? -EIO : 0;
}
