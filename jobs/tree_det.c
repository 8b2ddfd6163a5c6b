/* The deterministic generator: every vertex of level i-1 has z_i children,
 * vertices numbered breadth-first, children in order. */
#include "tree.h"

void tree_gen_deterministic(tree *t, const uint32_t *z, uint32_t zlen)
{
    tree_shape s;
    tree_shape_closed_form(z, zlen, &s);
    tree_reserve(t, s.n);
    t->n = s.n;
    t->parent[0] = TREE_NONE;
    t->level[0] = 1;
    /* breadth-first numbering makes every CSR child range contiguous: the
     * children of v are the next block after those of v-1 */
    uint32_t next = 1, first = 0, width = 1;
    for (uint32_t lv = 0; lv <= zlen; lv++) {
        uint32_t k = lv < zlen ? z[lv] : 0;
        for (uint32_t v = first; v < first + width; v++) {
            t->child_off[v] = next - 1;
            for (uint32_t c = 0; c < k; c++) {
                t->parent[next] = v;
                t->level[next] = lv + 2;
                t->child[next - 1] = next;
                next++;
            }
        }
        first += width;
        width *= k;
    }
    t->child_off[t->n] = t->n - 1;
}
