/* SPDX-License-Identifier: MIT */
#include "render-labels.h"

#include <errno.h>
#include <string.h>

#include "../checks/checks.h"
#include "../topo/topo.h"
#include "../util/strv.h"
#include "render.h"

/* A node's labels carry no pod gate: on a node it is always skip. */
static const char *gate_label[N_GATES] = { "gate-gpu", "gate-rdma", "gate-direct", NULL };

/* Label values are [A-Za-z0-9] at both ends, [-_.A-Za-z0-9] inside, <= 63. */
static const char *regpath_value(enum reg_path p)
{
	switch (p) {
	case REG_PATH_DMABUF:
		return "dmabuf";
	case REG_PATH_PEERMEM:
		return "peermem";
	case REG_PATH_NONE:
		return "none";
	case REG_PATH_UNKNOWN:
		break;
	}
	return "unknown";
}

static const char *best_path_value(int path)
{
	return path < 0 ? "unknown" : nccl_path_name(path);
}

static const char *probe_value(const char *probe)
{
	if (strcmp(probe, "nvidia-peermem") == 0)
		return "peermem";
	if (strcmp(probe, "dma-buf") == 0)
		return "dmabuf";
	return probe;
}

#define MAX_LABELS 12

struct label {
	const char *name; /* without the prefix */
	const char *value;
};

/* The node's labels, in file order; the one list the file and JSON print. */
static size_t node_labels(const struct labels_run *run,
			  struct label v[MAX_LABELS])
{
	const struct node_summary *s = run->sum;
	size_t n = 0;

	if (!s) {
		v[n++] = (struct label){ "collect", "error" };
		return n;
	}
	v[n++] = (struct label){ "collect", "ok" };
	for (size_t g = 0; g < N_GATES; g++)
		if (gate_label[g])
			v[n++] = (struct label){ gate_label[g], check_status_name(s->gate[g]) };
	v[n++] = (struct label){ "regpath", regpath_value(s->regpath) };
	v[n++] = (struct label){ "best-path", best_path_value(s->best_path) };
	v[n++] = (struct label){ "nccl-gdr", s->nccl_gdr };
	v[n++] = (struct label){ "rdma-netns", s->rdma_netns };
	v[n++] = (struct label){ "roce-qos", check_status_name(s->roce_qos) };
	if (s->probe)
		v[n++] = (struct label){ "probe", probe_value(s->probe) };
	return n;
}

int render_nfd_labels(FILE *out, const struct labels_run *run)
{
	struct label v[MAX_LABELS];
	size_t n = node_labels(run, v);
	char stamp[32];

	fprintf(out, "# gdrcheck %s: GPUDirect RDMA readiness of this node\n",
		run->version);
	/* NFD drops the labels of an expired file: a stopped DaemonSet leaves no stale verdict. */
	if (run->expires) {
		struct tm tm;

		if (!gmtime_r(&run->expires, &tm) ||
		    !strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
			return -EINVAL;
		fprintf(out, "# +expiry-time=%s\n", stamp);
	}
	for (size_t i = 0; i < n; i++)
		fprintf(out, LABEL_PREFIX "%s=%s\n", v[i].name, v[i].value);
	return ferror(out) ? -EIO : 0;
}

json_object *render_labels_json(const struct labels_run *run)
{
	struct label v[MAX_LABELS];
	size_t n = node_labels(run, v);
	json_object *doc = json_object_new_object(), *labels = json_object_new_object();
	char name[128];

	if (!doc || !labels) {
		json_object_put(doc);
		json_object_put(labels);
		return NULL;
	}
	json_object_object_add(doc, "schema", json_object_new_string("gdrcheck.labels/1"));
	json_object_object_add(doc, "collect",
			       json_object_new_string(run->error ? "error" : "ok"));
	json_object_object_add(doc, "error", render_str_or_null(run->error));
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), LABEL_PREFIX "%s", v[i].name);
		json_object_object_add(labels, name, json_object_new_string(v[i].value));
	}
	json_object_object_add(doc, "labels", labels);
	return doc;
}

void render_prom_value(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void prom_head(FILE *out, const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void prom_checks(FILE *out, const struct report *rep)
{
	prom_head(out, "gdrcheck_check_status",
		  "Status of each check: 0 pass, 1 info, 2 skip, 3 unknown, 4 warn, 5 fail.");
	for (size_t i = 0; i < rep->n_findings; i++) {
		const struct finding *fd = &rep->findings[i];

		fprintf(out, "gdrcheck_check_status{id=\"%s\",gate=\"%s\"} %d\n",
			fd->id, gate_key(fd->gate), (int)fd->status);
	}
	prom_head(out, "gdrcheck_check_info",
		  "Always 1; the status of each check as a label.");
	for (size_t i = 0; i < rep->n_findings; i++) {
		const struct finding *fd = &rep->findings[i];

		fprintf(out, "gdrcheck_check_info{id=\"%s\",gate=\"%s\",status=\"%s\"} 1\n",
			fd->id, gate_key(fd->gate), check_status_name(fd->status));
	}
	prom_head(out, "gdrcheck_gate_status",
		  "Status of each gate (its worst check): 0 pass, 1 info, 2 skip, 3 unknown, 4 warn, 5 fail.");
	for (size_t g = 0; g < N_GATES; g++)
		fprintf(out, "gdrcheck_gate_status{gate=\"%s\",name=\"%s\"} %d\n",
			gate_key(rep->gates[g].gate), gate_name(rep->gates[g].gate),
			(int)rep->gates[g].status);
}

static void prom_pairs(FILE *out, const struct facts *f,
		       const struct topo_report *t)
{
	prom_head(
		out, "gdrcheck_pair_info",
		"Always 1, one per GPU x NIC pair: nvidia-smi label, NCCL path, whether NCCL uses GPUDirect RDMA (yes, predicted, no, unknown: gdrcheck topo's gdr column).");
	for (size_t i = 0; i < t->n_pairs; i++) {
		const struct topo_pair *p = &t->pairs[i];
		const char *smi = smi_label_name(p->smi);

		fprintf(out, "gdrcheck_pair_info{gpu=\"%zu\",nic=", p->gpu);
		render_prom_value(out, f->nics[p->nic].name);
		fprintf(out, ",smi=\"%s\",nccl=\"%s\",gdr=\"%s\"} 1\n", smi ? smi : "unknown",
			nccl_path_name(p->nccl), gdr_state_name(p->gdr.state));
	}
}

static void prom_summary(FILE *out, const struct node_summary *s, const struct fleet_reading *fleet)
{
	prom_head(out, "gdrcheck_pairs", "GPU x NIC pairs on the node.");
	fprintf(out, "gdrcheck_pairs %zu\n", s->n_pairs);
	prom_head(
		out, "gdrcheck_gdr_pairs",
		"GPU x NIC pairs over which NCCL uses GPUDirect RDMA, proven or predicted (gdrcheck_pair_info's gdr says which).");
	fprintf(out, "gdrcheck_gdr_pairs %zu\n", s->n_gdr_pairs);
	prom_head(
		out, "gdrcheck_node_info",
		"Always 1; the node's verdict as labels (the same values as its NFD labels) and what must agree across GPU nodes of one kind (gdrcheck fleet's keys).");
	fprintf(out,
		"gdrcheck_node_info{regpath=\"%s\",best_path=\"%s\",nccl_gdr=\"%s\",rdma_netns=\"%s\",roce_qos=\"%s\",probe=\"%s\"",
		regpath_value(s->regpath), best_path_value(s->best_path), s->nccl_gdr,
		s->rdma_netns, check_status_name(s->roce_qos),
		s->probe ? probe_value(s->probe) : "not-run");
	render_prom_drift_labels(out, fleet);
	fputs("} 1\n", out);
}

/* Whether a vendor library loaded and initialised: NULL when the run did not ask for it. */
static const char *lib_state(const struct probe_lib *l, bool *ready)
{
	if (l->loaded.state == FACT_UNSET)
		return NULL;
	*ready = fact_ok(&l->loaded) && l->init.state != FACT_UNREADABLE;
	return l->reason ? l->reason : *ready ? "" : "not loaded";
}

/*
 * The vendor libraries a run asked for (--nvml, --probe): a DaemonSet
 * without the NVIDIA runtime has no libnvidia-ml, and says so here.
 */
static void prom_libs(FILE *out, const struct facts *f)
{
	const struct {
		const char *name;
		const struct probe_lib *lib;
	} libs[] = {
		{ "libnvidia-ml", &f->probe.nvml },
		{ "libcuda", &f->probe.cuda },
		{ "libibverbs", &f->probe.ibverbs },
	};
	bool head = false, ready;

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		const char *why = lib_state(libs[i].lib, &ready);

		if (!why)
			continue;
		if (!head)
			prom_head(
				out, "gdrcheck_library_ready",
				"1 when a vendor library the run asked for loaded and initialised, 0 when it did not (gdrcheck_library_error_info says why).");
		head = true;
		fprintf(out, "gdrcheck_library_ready{library=\"%s\"} %d\n", libs[i].name, ready);
	}
	head = false;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		const char *why = lib_state(libs[i].lib, &ready);

		if (!why || ready)
			continue;
		if (!head)
			prom_head(out, "gdrcheck_library_error_info",
				  "Always 1; why a vendor library the run asked for is not ready.");
		head = true;
		fprintf(out, "gdrcheck_library_error_info{library=\"%s\",error=", libs[i].name);
		render_prom_value(out, why);
		fprintf(out, "} 1\n");
	}
}

static int prom_metrics_body(FILE *out, const struct labels_run *run)
{
	prom_head(out, "gdrcheck_build_info", "Always 1; the gdrcheck version.");
	fprintf(out, "gdrcheck_build_info{version=");
	render_prom_value(out, run->version);
	fprintf(out, "} 1\n");
	prom_head(out, "gdrcheck_collect_success",
		  "1 when the last run read the node's facts, 0 when it could not.");
	fprintf(out, "gdrcheck_collect_success %d\n", run->error ? 0 : 1);
	if (run->error) {
		prom_head(out, "gdrcheck_collect_error_info",
			  "Always 1; why the last run could not read the node.");
		fprintf(out, "gdrcheck_collect_error_info{error=");
		render_prom_value(out, run->error);
		fprintf(out, "} 1\n");
	}
	if (run->mounts_checked) {
		prom_head(
			out, "gdrcheck_host_mounts_writable",
			"Mounts under --host-root this process may write: 0 when the node's files are read-only all the way down (recursiveReadOnly), more when the runtime fell back to read-only at the top only.");
		fprintf(out, "gdrcheck_host_mounts_writable %zu\n", strv_len(run->writable_mounts));
	}
	prom_head(out, "gdrcheck_last_run_timestamp_seconds",
		  "Unix time the last run started.");
	fprintf(out, "gdrcheck_last_run_timestamp_seconds %lld\n",
		(long long)run->started);
	prom_head(out, "gdrcheck_run_duration_seconds",
		  "Seconds the last run took (collect, analyse, render).");
	fprintf(out, "gdrcheck_run_duration_seconds %.6f\n", run->duration_s);
	if (run->rep) {
		prom_checks(out, run->rep);
		prom_pairs(out, run->f, run->topo);
		prom_summary(out, run->sum, run->fleet);
		prom_libs(out, run->f);
	}
	return ferror(out) ? -EIO : 0;
}

/*
 * The text format is UTF-8 (Prometheus "Exposition formats", basic info:
 * "Encoding: UTF-8") and promtool refuses other bytes; a device name from
 * a directory entry is bytes, so each one that is not UTF-8 becomes U+FFFD.
 */
int render_prom_metrics(FILE *raw, const struct labels_run *run)
{
	FILE *out = render_utf8_open(raw);

	if (!out)
		return -ENOMEM;
	return render_visible_close(out, prom_metrics_body(out, run));
}
