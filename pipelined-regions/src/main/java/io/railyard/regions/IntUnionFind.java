package io.railyard.regions;

/**
 * Disjoint sets over the ints {@code [0, n)}: union by size with path halving, so a sequence of m
 * operations costs O(m α(n)). Two int arrays, no allocation after construction. Not thread-safe.
 */
final class IntUnionFind {
    private final int[] parent;
    private final int[] size;

    IntUnionFind(int n) {
        parent = new int[n];
        size = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = i;
            size[i] = 1;
        }
    }

    /** The representative of the set holding {@code x}. */
    int find(int x) {
        int node = x;
        while (parent[node] != node) {
            parent[node] = parent[parent[node]];
            node = parent[node];
        }
        return node;
    }

    /** Joins the sets of {@code a} and {@code b}. */
    void union(int a, int b) {
        int rootA = find(a);
        int rootB = find(b);
        if (rootA == rootB) {
            return;
        }
        if (size[rootA] < size[rootB]) {
            int swap = rootA;
            rootA = rootB;
            rootB = swap;
        }
        parent[rootB] = rootA;
        size[rootA] += size[rootB];
    }
}
