/*
 * queue.c - a bounded FIFO queue of pointers.
 *
 * Not thread-safe.
 */

#include <stdlib.h>
#include <string.h>
#include "queue.h"

#define QUEUE_MIN 4
#define QUEUE_GROW(n) \
    ((n) * 2)

/* One queue. */
struct queue {
    void **items;
    size_t head;
    size_t len;
    size_t cap; /* always a power of two */
};

typedef enum {
    QUEUE_OK = 0,
    QUEUE_FULL,
    QUEUE_EMPTY,
} queue_status;

static int queues_alive = 0;

int queue_debug = 0;

/* Makes a queue of at least `cap` slots. */
struct queue *queue_new(size_t cap)
{
    struct queue *q = malloc(sizeof *q);
    if (!q)
        return NULL;
    if (cap < QUEUE_MIN)
        cap = QUEUE_MIN;
    q->items = calloc(cap, sizeof *q->items);
    q->head = q->len = 0;
    q->cap = cap;
    queues_alive++;
    return q;
}

static size_t slot(const struct queue *q, size_t i)
{
    return (q->head + i) & (q->cap - 1);
}

/*
 * Adds an item at the back.
 *
 * Returns QUEUE_FULL when there is no room.
 */
queue_status queue_push(struct queue *q,
                        void *item)
{
    if (q->len == q->cap)
        return QUEUE_FULL;
    q->items[slot(q, q->len++)] = item;
    return QUEUE_OK;
}

#ifdef QUEUE_DEBUG
void queue_dump(const struct queue *q)
{
    for (size_t i = 0; i < q->len; i++)
        fprintf(stderr, "%p\n", q->items[slot(q, i)]);
}
#endif

void queue_free(struct queue *q)
{
    free(q->items);
    free(q);
    queues_alive--;
}
