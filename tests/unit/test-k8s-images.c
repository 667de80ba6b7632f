/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks/checks-platform.h"
#include "k8s/k8s-images.h"
#include "model/facts.h"

/*
 * k8s --images: the GPU Operator releases of the table, the driver image's
 * OS tag per operator version (getGPUNodeOSInfo, kernelFullVersion), and
 * the list for a node: what the host driver, an unreadable os-release and
 * the Network Operator's NFD change.
 */

static void set_os(struct facts *f, const char *id, const char *ver)
{
	fact_str_release(&f->host.os_id);
	fact_str_release(&f->host.os_version_id);
	if (id)
		assert_int_equal(fact_str_set(&f->host.os_id, id), 0);
	if (ver)
		assert_int_equal(fact_str_set(&f->host.os_version_id, ver), 0);
}

static void test_release_find(void **state)
{
	char known[512];

	(void)state;
	assert_string_equal(helm_release_find("gpu-operator", "26.3.3")->version, "v26.3.3");
	assert_string_equal(helm_release_find("gpu-operator", "v26.3.3")->version, "v26.3.3");
	/* A major names its newest patch; nothing names the newest of all. */
	assert_string_equal(helm_release_find("gpu-operator", "26.3")->version, "v26.3.3");
	assert_string_equal(helm_release_find("gpu-operator", "25.10")->version, "v25.10.1");
	assert_string_equal(helm_release_find("gpu-operator", NULL)->version, "v26.7.0");
	assert_string_equal(helm_release_find("network-operator", NULL)->version, "26.4.1");
	assert_null(helm_release_find("gpu-operator", "26.3.9"));
	assert_null(helm_release_find("gpu-operator", "24.9.2"));
	assert_null(helm_release_find("gpu-operator", "latest"));
	assert_null(helm_release_find("gpu-operator", "26"));
	assert_null(helm_release_find("no-such-chart", NULL));
	helm_release_versions("gpu-operator", known, sizeof(known));
	assert_non_null(strstr(known, "v25.10.0, "));
	assert_non_null(strstr(known, "v26.7.0"));
}

/* Every GPU Operator release: its own tag on the operator, a driver to tag. */
static void test_table(void **state)
{
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < helm_n_releases; i++) {
		const struct helm_release *r = &helm_releases[i];
		bool op = false, drv = false;

		if (strcmp(r->chart, "gpu-operator") != 0)
			continue;
		n++;
		for (size_t k = 0; k < r->n_images; k++) {
			if (strcmp(r->images[k].key, "operator") == 0) {
				assert_string_equal(r->images[k].tag, r->version);
				op = true;
			}
			if (strcmp(r->images[k].key, "driver") == 0)
				drv = r->images[k].enabled;
		}
		assert_true(op);
		assert_true(drv);
	}
	assert_int_equal(n, 7);
}

static void test_os_tag(void **state)
{
	static const struct {
		const char *id, *ver, *op, *want;
	} cases[] = {
		/* 25.10: the full VERSION_ID (kernelFullVersion). */
		{ "rhel", "10.2", "25.10.1", "rhel10.2" },
		{ "rocky", "9.6", "25.10.1", "rocky9.6" },
		/* 26.3: Rocky, and RHEL from 10 on, the major release. */
		{ "rhel", "10.2", "26.3.3", "rhel10" },
		{ "rhel", "9.6", "26.3.3", "rhel9.6" },
		{ "rocky", "9.6", "26.3.3", "rocky9" },
		{ "ol", "9.6", "26.3.3", "ol9.6" },
		/* 26.7: Oracle Linux and every RHEL too. */
		{ "rhel", "9.6", "26.7.0", "rhel9" },
		{ "ol", "9.6", "26.7.0", "ol9" },
		{ "ubuntu", "24.04", "26.7.0", "ubuntu24.04" },
		{ "ubuntu", "24.04", NULL, "ubuntu24.04" },
		{ "rhel", "10.2", NULL, "rhel10" },
	};
	struct facts f;
	char tag[64];

	(void)state;
	facts_init(&f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_os(&f, cases[i].id, cases[i].ver);
		assert_int_equal(gpu_operator_os_tag(&f, cases[i].op, tag, sizeof(tag)), 0);
		assert_string_equal(tag, cases[i].want);
	}
	/* os-release is the node's text: nothing an image tag may not hold. */
	set_os(&f, "rhel\nx", "10.2");
	assert_int_equal(gpu_operator_os_tag(&f, "26.3.3", tag, sizeof(tag)), -EINVAL);
	set_os(&f, "rhel", "10.2:latest");
	assert_int_equal(gpu_operator_os_tag(&f, "26.3.3", tag, sizeof(tag)), -EINVAL);
	set_os(&f, "rhel", NULL);
	assert_int_equal(gpu_operator_os_tag(&f, "26.3.3", tag, sizeof(tag)), -EINVAL);
	facts_release(&f);
}

static const struct k8s_image *find(const struct k8s_images *l, const char *ref)
{
	for (size_t i = 0; i < l->n_images; i++)
		if (strcmp(l->images[i].ref, ref) == 0)
			return &l->images[i];
	return NULL;
}

static bool has_prefix(const struct k8s_images *l, const char *prefix)
{
	for (size_t i = 0; i < l->n_images; i++)
		if (strncmp(l->images[i].ref, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

static bool mentions(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strstr(v[i], s))
			return true;
	return false;
}

static void test_node_list(void **state)
{
	struct k8s_plan standalone = { .mode = K8S_MODE_HOSTNETWORK,
				       .install = K8S_INSTALL_STANDALONE,
				       .ns = "kube-system" };
	struct k8s_plan operator= { .mode = K8S_MODE_SHARED,
				    .install = K8S_INSTALL_OPERATOR,
				    .ns = K8S_OPERATOR_NAMESPACE };
	const struct k8s_image *img;
	struct k8s_images l;
	struct facts f;

	(void)state;
	facts_init(&f);
	set_os(&f, "rhel", "10.2");
	assert_int_equal(k8s_images_build(&f, &standalone, "gpu-operator", "26.3.3", &l), 0);
	assert_string_equal(l.os_tag, "rhel10");
	img = find(&l, "nvcr.io/nvidia/driver:580.126.20-rhel10");
	assert_non_null(img);
	assert_null(img->enable);
	assert_non_null(find(&l, "registry.k8s.io/nfd/node-feature-discovery:v0.18.3"));
	/* One image, every operand that uses it. */
	assert_string_equal(find(&l, "nvcr.io/nvidia/gpu-operator:v26.3.3")->keys,
			    "operator, validator");
	assert_string_equal(find(&l, "nvcr.io/nvidia/k8s-device-plugin:v0.19.3")->keys,
			    "devicePlugin, gfd");
	/* Off by default: listed with the setting that adds it, tagged for the OS. */
	img = find(&l, "nvcr.io/nvidia/cloud-native/nvidia-fs:2.27.3-rhel10");
	assert_non_null(img);
	assert_string_equal(img->enable, "gds.enabled=true");
	/* Sandbox operands are not a bare-metal node's. */
	assert_false(has_prefix(&l, "nvcr.io/nvidia/kubevirt-gpu-device-plugin"));
	assert_null(l.net);
	assert_true(mentions(l.commands, "helm pull nvidia/gpu-operator --version v26.3.3"));
	k8s_images_release(&l);

	/* With the Network Operator: the GPU Operator's NFD, the Network Operator's off. */
	assert_int_equal(k8s_images_build(&f, &operator, "gpu-operator", "26.7", &l), 0);
	assert_non_null(l.net);
	assert_true(has_prefix(&l, "registry.k8s.io/nfd/"));
	assert_null(find(
		&l, "nvcr.io/nvidia/mellanox/node-feature-discovery:network-operator-v26.4.1"));
	assert_non_null(find(&l, "nvcr.io/nvidia/driver:595.91.07-rhel10"));
	assert_true(mentions(l.commands, "network-operator-values.yaml --set nfd.enabled=false"));
	assert_false(mentions(l.commands, "gpu-operator-values.yaml --set nfd.enabled=false"));
	assert_true(mentions(l.commands, "helm pull nvidia/network-operator --version 26.4.1"));
	k8s_images_release(&l);

	/* --helm-values network-operator: the NIC side only. */
	assert_int_equal(k8s_images_build(&f, &operator, "network-operator", NULL, &l), 0);
	assert_null(l.gpu);
	assert_false(has_prefix(&l, "nvcr.io/nvidia/driver"));
	/* Its values keep its NFD on (no GPU Operator seen): its image is listed. */
	assert_non_null(find(
		&l, "nvcr.io/nvidia/mellanox/node-feature-discovery:network-operator-v26.4.1"));
	assert_false(mentions(l.commands, "gpu-operator"));
	k8s_images_release(&l);

	/* A host driver: no driver image, and it says why. */
	fact_int_set(&f.host.platform.host_smi, 1);
	assert_int_equal(k8s_images_build(&f, &standalone, "gpu-operator", NULL, &l), 0);
	assert_false(has_prefix(&l, "nvcr.io/nvidia/driver:"));
	assert_false(has_prefix(&l, "nvcr.io/nvidia/cloud-native/k8s-driver-manager"));
	assert_true(mentions(l.warnings, "driver.enabled=false"));
	k8s_images_release(&l);

	/* No os-release: no driver tag guessed. */
	facts_release(&f);
	facts_init(&f);
	assert_int_equal(k8s_images_build(&f, &standalone, "gpu-operator", NULL, &l), 0);
	assert_string_equal(l.os_tag, "");
	assert_false(has_prefix(&l, "nvcr.io/nvidia/driver:"));
	assert_true(mentions(l.warnings, "/etc/os-release"));
	k8s_images_release(&l);

	assert_int_equal(k8s_images_build(&f, &standalone, "gpu-operator", "24.9", &l), -ENOENT);
	k8s_images_release(&l);
	facts_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_find),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_os_tag),
		cmocka_unit_test(test_node_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
