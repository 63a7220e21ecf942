/*
 * Intrusive doubly-linked lists: a struct list is both a list's head (a
 * sentinel, circular) and an element's link. A link that is on no list has
 * next == NULL (as a zeroed struct leaves it), so list_del() may be called
 * on any link, linked or not. No locking: the owner of the list locks.
 *
 *	struct list queue = LIST_INIT(queue);
 *	list_add_tail(&queue, &kt->wait_link);
 *	for (struct list *l = queue.next; l != &queue; l = l->next)
 *		use(container_of(l, struct kthread, wait_link));
 *	list_del(&kt->wait_link);
 */
#ifndef LIST_H
#define LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <compiler.h>

struct list {
	struct list *next, *prev;
};

#define LIST_INIT(name)	{ &(name), &(name) }

/* Makes head an empty list. */
static inline void list_init(struct list *head)
{
	head->next = head->prev = head;
}

static inline bool list_empty(const struct list *head)
{
	return head->next == head;
}

/* True if link is on some list. */
static inline bool list_linked(const struct list *link)
{
	return link->next != NULL;
}

/* Returns bucket i of a hash table of lists, made an empty list on first
 * use (so a zeroed static table needs no initialisation pass). The
 * table's lock held. */
static inline struct list *list_bucket(struct list *table, uint32_t i)
{
	if (table[i].next == NULL)
		list_init(&table[i]);
	return &table[i];
}

/* Puts link (on no list) right after pos. */
static inline void list_add_after(struct list *pos, struct list *link)
{
	link->prev = pos;
	link->next = pos->next;
	pos->next->prev = link;
	pos->next = link;
}

/* Puts link (on no list) last on head. */
static inline void list_add_tail(struct list *head, struct list *link)
{
	list_add_after(head->prev, link);
}

/* Takes link off its list, if it is on one. */
static inline void list_del(struct list *link)
{
	if (!list_linked(link))
		return;
	link->prev->next = link->next;
	link->next->prev = link->prev;
	link->next = link->prev = NULL;
}

#endif /* LIST_H */
