package io.railyard.regions;

/**
 * Tarjan's strongly connected components, iterative (no recursion, so a chain of 10^6 nodes does
 * not overflow the stack), over a graph in CSR form: the successors of node {@code v} are {@code
 * targets[offsets[v] .. offsets[v + 1])}.
 *
 * <p>Components are numbered in the order Tarjan completes them, which is a <em>reverse</em>
 * topological order of the condensation: an edge between two components always goes from the higher
 * component id to the lower. O(n + m) time; six int arrays of n temporaries.
 */
final class StronglyConnectedComponents {
    private final int[] component;
    private final int count;

    private StronglyConnectedComponents(int[] component, int count) {
        this.component = component;
        this.count = count;
    }

    /** The component of node {@code v}. */
    int componentOf(int v) {
        return component[v];
    }

    /** The number of components. */
    int count() {
        return count;
    }

    static StronglyConnectedComponents compute(int n, int[] offsets, int[] targets) {
        int[] index = new int[n];
        int[] low = new int[n];
        int[] component = new int[n];
        int[] nextEdge = new int[n];
        int[] stack = new int[n];
        int[] calls = new int[n];
        java.util.Arrays.fill(index, -1);
        java.util.Arrays.fill(component, -1);
        int counter = 0;
        int stackSize = 0;
        int components = 0;
        for (int root = 0; root < n; root++) {
            if (index[root] >= 0) {
                continue;
            }
            int callDepth = 0;
            index[root] = low[root] = counter++;
            stack[stackSize++] = root;
            nextEdge[root] = offsets[root];
            calls[callDepth++] = root;
            while (callDepth > 0) {
                int v = calls[callDepth - 1];
                if (nextEdge[v] < offsets[v + 1]) {
                    int w = targets[nextEdge[v]++];
                    if (index[w] < 0) {
                        index[w] = low[w] = counter++;
                        stack[stackSize++] = w;
                        nextEdge[w] = offsets[w];
                        calls[callDepth++] = w;
                    } else if (component[w] < 0) {
                        // w is still on the stack: it belongs to an open component.
                        low[v] = Math.min(low[v], index[w]);
                    }
                    continue;
                }
                callDepth--;
                if (low[v] == index[v]) {
                    int w;
                    do {
                        w = stack[--stackSize];
                        component[w] = components;
                    } while (w != v);
                    components++;
                }
                if (callDepth > 0) {
                    int parent = calls[callDepth - 1];
                    low[parent] = Math.min(low[parent], low[v]);
                }
            }
        }
        return new StronglyConnectedComponents(component, components);
    }
}
