/*
 * The net-shaper client against the attribute layout of the facts file:
 * messages round-trip through libmnl, and the raw attributes sit where the
 * uapi puts them. The integration part skips with the reason when the
 * kernel has no net-shaper family.
 */
#include "helpers.h"
#include "../kernel/net/shaper_nl.h"
#include "../kernel/probe.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <linux/genetlink.h>
#include <string.h>

static struct nlmsghdr *encode(char *buf, const struct kb_shaper *s)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));

	gh->cmd = NET_SHAPER_CMD_SET;
	gh->version = 1;
	kb_shaper_put(nlh, s);
	return nlh;
}

Test(shaper, set_message_round_trips)
{
	char buf[4096];
	struct kb_shaper in = { .ifindex = 7, .handle = { NET_SHAPER_SCOPE_QUEUE, 3 },
				.parent = { NET_SHAPER_SCOPE_NODE, 9 }, .has_parent = true,
				.has_metric = true, .metric = NET_SHAPER_METRIC_BPS,
				.has_bw_min = true, .bw_min = 1000000,
				.has_bw_max = true, .bw_max = 5000000000ull,
				.has_burst = true, .burst = 65536,
				.has_priority = true, .priority = 2,
				.has_weight = true, .weight = 30 };
	struct kb_shaper out;

	cr_assert_eq(kb_shaper_parse(encode(buf, &in), &out), 0);
	cr_expect_eq(out.ifindex, 7);
	cr_expect_eq(out.handle.scope, NET_SHAPER_SCOPE_QUEUE);
	cr_expect_eq(out.handle.id, 3);
	cr_expect(out.has_parent && out.parent.scope == NET_SHAPER_SCOPE_NODE && out.parent.id == 9);
	cr_expect_eq(out.bw_min, 1000000);
	cr_expect_eq(out.bw_max, 5000000000ull);
	cr_expect_eq(out.burst, 65536);
	cr_expect_eq(out.priority, 2);
	cr_expect_eq(out.weight, 30);
	cr_expect(out.has_metric && out.metric == NET_SHAPER_METRIC_BPS);
}

/* The numbers of shared/kernel-uapi-facts.md, checked on the wire. */
Test(shaper, attribute_layout_matches_the_uapi)
{
	char buf[4096];
	struct kb_shaper in = { .ifindex = 4, .handle = { NET_SHAPER_SCOPE_NETDEV, 0 },
				.has_bw_max = true, .bw_max = 100 };
	struct nlmsghdr *nlh = encode(buf, &in);
	const struct nlattr *a, *h;
	int seen = 0;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case 8:	/* IFINDEX, u32 */
			cr_expect_eq(mnl_attr_get_payload_len(a), 4);
			cr_expect_eq(mnl_attr_get_u32(a), 4);
			seen |= 1;
			break;
		case 1:	/* HANDLE, nest: SCOPE 1, ID 2 */
			mnl_attr_for_each_nested(h, a) {
				if (mnl_attr_get_type(h) == 1)
					cr_expect_eq(mnl_attr_get_u32(h), 1);	/* NETDEV */
				seen |= mnl_attr_get_type(h) == 2 ? 2 : 0;
			}
			break;
		case 4:	/* BW_MAX, uint */
			cr_expect_eq(kb_genl_uint(a), 100);
			seen |= 4;
			break;
		default:
			cr_expect_fail("unexpected attribute %d", mnl_attr_get_type(a));
		}
	}
	cr_expect_eq(seen, 7);
	cr_expect_eq(NET_SHAPER_CMD_CAP_GET, 5);
	cr_expect_eq(NET_SHAPER_A_LEAVES, 10);
	cr_expect_eq(NET_SHAPER_A_CAPS_SUPPORT_WEIGHT, 10);
}

/* A new node for group goes without an id (the kernel picks one); any other id is sent. */
Test(shaper, new_node_handle_has_no_id)
{
	char buf[4096];
	struct kb_shaper in = { .ifindex = 4, .handle = { NET_SHAPER_SCOPE_NODE, KB_SHAPER_NODE_NEW } };
	const struct nlattr *a, *h;
	int ids = 0, scopes = 0;

	mnl_attr_for_each(a, encode(buf, &in), sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == NET_SHAPER_A_HANDLE)
			mnl_attr_for_each_nested(h, a) {
				ids += mnl_attr_get_type(h) == NET_SHAPER_A_HANDLE_ID;
				scopes += mnl_attr_get_type(h) == NET_SHAPER_A_HANDLE_SCOPE &&
					  mnl_attr_get_u32(h) == NET_SHAPER_SCOPE_NODE;
			}
	cr_expect_eq(scopes, 1);
	cr_expect_eq(ids, 0, "a new node's handle carries no id");
	in.handle.id = 7;
	ids = 0;
	mnl_attr_for_each(a, encode(buf, &in), sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == NET_SHAPER_A_HANDLE)
			mnl_attr_for_each_nested(h, a)
				ids += mnl_attr_get_type(h) == NET_SHAPER_A_HANDLE_ID &&
				       mnl_attr_get_u32(h) == 7;
	cr_expect_eq(ids, 1, "an existing node's id is sent");
}

Test(shaper, cli_says_why_without_the_family)
{
	static struct cli_result r;
	const struct kb_probe_result *p = kb_probe_find("net_shaper");

	run_cli(&r, "shaper caps lo");
	if (p->present)
		cr_skip_test("skipped: this kernel has net-shaper (lo's answer: exit %d)", r.status);
	cr_expect_eq(r.status, 3);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "kernel lacks the net-shaper family"), "%s", r.err);
	run_cli(&r, "shaper set lo scope=bogus");
	cr_expect_eq(r.status, 2);
	run_cli(&r, "shaper show no-such-dev0");
	cr_expect_eq(r.status, 2);
}

/*
 * The software baseline really shapes: something got through (every sample
 * above zero) and no more than the configured rate (+5%). How close to the
 * rate it gets is a speed, which a loaded host (or TCG) lowers: that is the
 * benchmark's accuracy fact, not a test.
 */
Test(shaper, tc_baseline_shapes_and_shares, .timeout = 180)
{
	static struct cli_result r;
	cJSON *doc, *it, *s;
	int n = 0;

	run_cli(&r, "run -f 'net/shaper/*' -r 2 --no-store -q -J");
	cr_assert(r.status == 0, "exit %d: %s", r.status, r.err);
	doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "results")) {
		const char *b = cJSON_GetObjectItem(it, "benchmark")->valuestring;
		double med = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "summary"), "median")->valuedouble;

		n++;
		if (!strcmp(b, "net/shaper/rate")) {
			cJSON *conf = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "facts"), "configured_mbit");

			cr_assert(cJSON_IsString(conf), "no configured_mbit fact");
			cr_expect_str_eq(conf->valuestring, "100", "the default rate");
			cr_expect_gt(cJSON_GetArraySize(cJSON_GetObjectItem(it, "samples")), 0);
			cJSON_ArrayForEach(s, cJSON_GetObjectItem(it, "samples"))
				cr_expect_gt(s->valuedouble, 0.0, "a shaped flow moved nothing");
			cr_expect_leq(med, 105.0, "100 Mbit/s shaped to %.1f", med);
		} else if (!strcmp(b, "net/shaper/share")) {
			cr_expect_gt(med, 0.8, "Jain's index %.3f", med);
		}
	}
	cr_expect_eq(n, 3, "htb, tbf and the share");
	cJSON_Delete(doc);
}
