//! Strongly connected components of a directed graph given as adjacency
//! lists, by Tarjan's algorithm: the one implementation that the dependency
//! graph, the checker, the grounder and the interpreter share.

/// The strongly connected components of a graph.
#[derive(Clone, Debug, Default)]
pub struct Sccs {
    /// The component of each node. Components are numbered in reverse
    /// topological order: a node's successors have component numbers no
    /// larger than its own.
    pub comp: Vec<u32>,
    /// Every node, in the order the algorithm completes them: the nodes of
    /// each component are contiguous, components in increasing number.
    order: Vec<u32>,
    /// Component `c` is `order[start[c]..start[c + 1]]`.
    start: Vec<u32>,
}

impl Sccs {
    /// Number of components.
    pub fn count(&self) -> usize {
        self.start.len() - 1
    }

    /// The nodes of component `c`, in completion order.
    pub fn members(&self, c: usize) -> &[u32] {
        &self.order[self.start[c] as usize..self.start[c + 1] as usize]
    }
}

/// Tarjan's algorithm over adjacency lists: `succ[u]` holds the edges out of
/// node `u`, and `target` gives the node an edge leads to. Iterative, so
/// that long dependency chains cannot overflow the stack.
pub fn tarjan<E>(succ: &[Vec<E>], target: impl Fn(&E) -> usize) -> Sccs {
    const UNSEEN: u32 = u32::MAX;
    let n = succ.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut stack = Vec::new();
    let mut order = Vec::with_capacity(n);
    let mut start = vec![0u32];
    let mut next_index = 0u32;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, next successor position)
        let mut call = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (u, ref mut pos)) = call.last_mut() {
            if let Some(e) = succ[u].get(*pos) {
                let v = target(e);
                *pos += 1;
                if index[v] == UNSEEN {
                    index[v] = next_index;
                    low[v] = next_index;
                    next_index += 1;
                    stack.push(v);
                    on_stack[v] = true;
                    call.push((v, 0));
                } else if on_stack[v] {
                    low[u] = low[u].min(index[v]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent] = low[parent].min(low[u]);
                }
                if low[u] == index[u] {
                    let c = (start.len() - 1) as u32;
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = c;
                        order.push(w as u32);
                        if w == u {
                            break;
                        }
                    }
                    start.push(order.len() as u32);
                }
            }
        }
    }
    Sccs { comp, order, start }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_in_reverse_topological_order() {
        // 0 -> 1 <-> 2 -> 3, and 4 alone.
        let succ: Vec<Vec<usize>> = vec![vec![1], vec![2], vec![1, 3], vec![], vec![]];
        let s = tarjan(&succ, |&v| v);
        assert_eq!(s.count(), 4);
        assert_eq!(s.comp[1], s.comp[2]);
        assert!(s.comp[3] < s.comp[1] && s.comp[1] < s.comp[0]);
        let mut m = s.members(s.comp[1] as usize).to_vec();
        m.sort();
        assert_eq!(m, [1, 2]);
        assert_eq!(s.members(s.comp[4] as usize), [4]);
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let n = 200_000;
        let succ: Vec<Vec<u32>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let s = tarjan(&succ, |&v| v as usize);
        assert_eq!(s.count(), n as usize);
        assert_eq!(s.comp[0] as usize, n as usize - 1);
    }
}
