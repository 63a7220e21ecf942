/*
 * Host tests of kern/include/list.h and hash.h: list order and removal
 * (including of links on no list), lazily made hash buckets, and hashes
 * that spread a directory's names and a run of pids over their buckets.
 */
#include <stdio.h>
#include <string.h>
#include <list.h>
#include <hash.h>
#include "htest.h"

struct item {
	int v;
	struct list link;
};

/* Writes the values on head, in order, into out; returns how many. */
static int values(struct list *head, int *out)
{
	int n = 0;

	for (struct list *l = head->next; l != head; l = l->next)
		out[n++] = container_of(l, struct item, link)->v;
	return n;
}

static int test_order(void)
{
	struct list head = LIST_INIT(head);
	struct item it[4] = { { 0, { 0 } }, { 1, { 0 } }, { 2, { 0 } },
			      { 3, { 0 } } };
	int v[4];

	HT_CHECK(list_empty(&head) && !list_linked(&it[0].link));
	list_add_tail(&head, &it[1].link);
	list_add_tail(&head, &it[3].link);
	list_add_after(&head, &it[0].link);
	list_add_after(&it[1].link, &it[2].link);
	HT_CHECK(values(&head, v) == 4 && v[0] == 0 && v[1] == 1 &&
		 v[2] == 2 && v[3] == 3);
	list_del(&it[2].link);
	list_del(&it[2].link);		/* on no list: nothing happens */
	list_del(&it[0].link);
	HT_CHECK(!list_linked(&it[2].link));
	HT_CHECK(values(&head, v) == 2 && v[0] == 1 && v[1] == 3);
	list_del(&it[1].link);
	list_del(&it[3].link);
	HT_CHECK(list_empty(&head));
	return 0;
}

static int test_bucket(void)
{
	static struct list table[4];
	struct item it = { 7, { 0 } };
	struct list *b = list_bucket(table, 2);

	HT_CHECK(b == &table[2] && list_empty(b) && table[1].next == NULL);
	list_add_tail(b, &it.link);
	HT_CHECK(list_bucket(table, 2)->next == &it.link);
	return 0;
}

/* The most keys in one bucket of n keys key(0..n-1). */
static int fullest(int n, uint32_t (*key)(int i))
{
	static int count[1 << 12];
	int most = 0;

	memset(count, 0, sizeof(count));
	for (int i = 0; i < n; i++) {
		int c = ++count[key(i)];

		most = c > most ? c : most;
	}
	return most;
}

static uint32_t name_key(int i)
{
	char name[16];

	snprintf(name, sizeof(name), "f%05d", i);
	return hash_str(name, 42, 12);
}

static uint32_t pid_key(int i)
{
	return hash_word((uint64_t)i + 1, 10);
}

static int test_spread(void)
{
	/* 20,000 names over 4,096 buckets: about 5 each */
	HT_CHECK(fullest(20000, name_key) < 20);
	/* 4,000 consecutive pids over 1,024 buckets: about 4 each */
	HT_CHECK(fullest(4000, pid_key) < 12);
	HT_CHECK(hash_str("a", 1, 12) != hash_str("a", 2, 12));
	return 0;
}

static const struct ht_test tests[] = {
	{ test_order, "list_order" },
	{ test_bucket, "list_bucket" },
	{ test_spread, "hash_spread" },
	{ 0, 0 },
};

int main(int argc, char **argv)
{
	return ht_main(tests, argc, argv);
}
