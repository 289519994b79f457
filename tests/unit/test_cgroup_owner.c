// SPDX-License-Identifier: GPL-2.0
/* Containers, pods and units named by the cgroup paths runtimes make. */
#include "unit.h"

#include <string.h>

#include "cgroup_owner.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "6f1c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b"
#define POD_ "6f1c2a3b_4d5e_4f60_8a9b_0c1d2e3f4a5b"

static const char *label(const char *path, struct cgroup_owner *o)
{
	static char buf[96];

	cgroup_owner_parse(path, o);
	return cgroup_owner_label(o, buf, sizeof(buf));
}

static void cgroup_owner_runtimes(void **state)
{
	struct cgroup_owner o;

	(void)state;
	assert_string_equal(label("/system.slice/docker-" ID ".scope", &o),
			    "docker:0123456789ab");
	assert_string_equal(o.container, ID);
	assert_string_equal(o.unit, "docker-" ID ".scope");
	assert_string_equal(label("/docker/" ID, &o), "docker:0123456789ab");
	assert_string_equal(label("/machine.slice/libpod-" ID ".scope", &o),
			    "podman:0123456789ab");
	/* conmon's scope is no container */
	assert_string_equal(label("/machine.slice/libpod-conmon-" ID ".scope",
				  &o), "unit:libpod-conmon-" ID ".scope");
	assert_string_equal(o.container, "");
	/* a cgroup made inside a container names no other container */
	assert_string_equal(label("/system.slice/docker-" ID ".scope/"
				  "docker-ffffffffffffffffffffffffffffffffffff"
				  "ffffffffffffffffffffffffffff.scope", &o),
			    "docker:0123456789ab");
}

static void cgroup_owner_kubernetes(void **state)
{
	struct cgroup_owner o;

	(void)state;
	assert_string_equal(
		label("/kubepods.slice/kubepods-burstable.slice/"
		      "kubepods-burstable-pod" POD_ ".slice/cri-containerd-" ID
		      ".scope", &o), "containerd:0123456789ab");
	assert_string_equal(o.pod_uid, POD);
	assert_string_equal(label("/kubepods.slice/kubepods-pod" POD_
				  ".slice/crio-" ID ".scope", &o),
			    "cri-o:0123456789ab");
	assert_string_equal(o.pod_uid, POD);
	/* cgroupfs driver */
	assert_string_equal(label("/kubepods/besteffort/pod" POD "/" ID, &o),
			    "container:0123456789ab");
	assert_string_equal(o.pod_uid, POD);
	/* the pod's own cgroup, no container in the path */
	assert_string_equal(label("/kubepods/burstable/pod" POD, &o),
			    "pod:" POD);
}

static void cgroup_owner_units_and_nothing(void **state)
{
	struct cgroup_owner o;

	(void)state;
	assert_string_equal(label("/system.slice/postgresql@15-main.service",
				  &o), "unit:postgresql@15-main.service");
	assert_string_equal(label("/user.slice/user-1000.slice/session-2.scope",
				  &o), "unit:session-2.scope");
	assert_string_equal(label("/", &o), "");
	assert_string_equal(label("", &o), "");
	assert_string_equal(label("/system.slice", &o), "");
	/* 63 hex digits: not an id */
	assert_string_equal(label("/docker/123456789abcdef0123456789abcdef"
				  "0123456789abcdef0123456789abcdef", &o), "");
	/* upper case is no runtime's id */
	assert_string_equal(label("/docker/0123456789ABCDEF0123456789abcdef"
				  "0123456789abcdef0123456789abcdef", &o), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cgroup_owner_runtimes),
		cmocka_unit_test(cgroup_owner_kubernetes),
		cmocka_unit_test(cgroup_owner_units_and_nothing),
	};

	return cmocka_run_group_tests_name("cgroup_owner", tests, NULL, NULL);
}
