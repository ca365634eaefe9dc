//! The layered layout of a machine: each state in the column of its breadth-first depth
//! from the start, the states of a column ordered to reduce crossings by the barycentre
//! heuristic (Sugiyama, Tagawa and Toda 1981: a state's place is the mean place of its
//! neighbours in the next column over, swept down and up a few times).
//!
//! Only transitions from one column to the next are drawn as lines; every other one (a
//! loop, a return to an earlier column, a step within a column) is written inside its
//! source state's box, so that the many transitions back to the start do not cross the
//! whole drawing.

/// Sweeps of the barycentre ordering (each one down and one up).
const SWEEPS: usize = 4;

/// Where each state goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layers {
    /// `depth[state]`: its column (the breadth-first depth from state 0; a state no
    /// transition reaches gets the column after the last).
    pub depth: Vec<usize>,
    /// `columns[d]`: the states of column `d`, top to bottom.
    pub columns: Vec<Vec<usize>>,
}

impl Layers {
    /// The place of `state` in its column.
    pub fn rank(&self, state: usize) -> usize {
        let column = &self.columns[self.depth[state]];
        column.iter().position(|&s| s == state).unwrap_or(0)
    }

    /// True when the transition `from → to` is drawn as a line (to the next column).
    pub fn is_forward(&self, from: usize, to: usize) -> bool {
        self.depth[to] == self.depth[from] + 1
    }
}

/// Lays out `states` states joined by `edges` (`(from, to)`, in the order a breadth-first
/// search should try them).
pub fn layers(states: usize, edges: &[(usize, usize)]) -> Layers {
    let mut depth = vec![usize::MAX; states];
    if states == 0 {
        return Layers {
            depth,
            columns: Vec::new(),
        };
    }
    depth[0] = 0;
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(state) = queue.pop_front() {
        for &(from, to) in edges {
            if from == state && to < states && depth[to] == usize::MAX {
                depth[to] = depth[state] + 1;
                queue.push_back(to);
            }
        }
    }
    let deepest = depth.iter().filter(|&&d| d != usize::MAX).max().copied();
    let unreached = deepest.map_or(0, |d| d + 1);
    for d in &mut depth {
        if *d == usize::MAX {
            *d = unreached;
        }
    }
    let count = depth.iter().max().map_or(0, |d| d + 1);
    let mut columns = vec![Vec::new(); count];
    for (state, &d) in depth.iter().enumerate() {
        columns[d].push(state);
    }
    let mut layers = Layers { depth, columns };
    for _ in 0..SWEEPS {
        for d in 1..layers.columns.len() {
            reorder(&mut layers, d, d - 1, edges, false);
        }
        for d in (0..layers.columns.len().saturating_sub(1)).rev() {
            reorder(&mut layers, d, d + 1, edges, true);
        }
    }
    layers
}

/// Orders column `d` by the mean rank of each state's neighbours in column `other`
/// (successors when `forward`, predecessors otherwise); a state with none keeps its rank.
fn reorder(layers: &mut Layers, d: usize, other: usize, edges: &[(usize, usize)], forward: bool) {
    let column = layers.columns[d].clone();
    let mut keyed: Vec<(f64, usize, usize)> = column
        .iter()
        .enumerate()
        .map(|(rank, &state)| {
            let neighbours: Vec<usize> = edges
                .iter()
                .filter_map(|&(from, to)| {
                    let (mine, theirs) = if forward { (from, to) } else { (to, from) };
                    (mine == state && theirs < layers.depth.len() && layers.depth[theirs] == other)
                        .then_some(theirs)
                })
                .collect();
            let key = if neighbours.is_empty() {
                rank as f64
            } else {
                let sum: usize = neighbours.iter().map(|&s| layers.rank(s)).sum();
                sum as f64 / neighbours.len() as f64
            };
            (key, rank, state)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    layers.columns[d] = keyed.into_iter().map(|(_, _, state)| state).collect();
}

/// The number of crossings between columns `d` and `d + 1` (for tests and for judging
/// the ordering).
pub fn crossings(layers: &Layers, edges: &[(usize, usize)], d: usize) -> usize {
    let lines: Vec<(usize, usize)> = edges
        .iter()
        .filter(|&&(from, to)| layers.depth[from] == d && layers.is_forward(from, to))
        .map(|&(from, to)| (layers.rank(from), layers.rank(to)))
        .collect();
    let mut count = 0;
    for (i, a) in lines.iter().enumerate() {
        for b in &lines[i + 1..] {
            if (a.0 < b.0 && a.1 > b.1) || (a.0 > b.0 && a.1 < b.1) {
                count += 1;
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_go_to_their_breadth_first_depth() {
        // 0 → 1 → 2 → 0, 0 → 3, 3 → 2.
        let edges = [(0, 1), (1, 2), (2, 0), (0, 3), (3, 2), (4, 4)];
        let layers = layers(5, &edges);
        assert_eq!(layers.depth, [0, 1, 2, 1, 3]);
        assert!(layers.is_forward(0, 1));
        assert!(!layers.is_forward(2, 0));
        assert_eq!(layers.columns[1].len(), 2);
    }

    #[test]
    fn the_barycentre_removes_an_avoidable_crossing() {
        // Column 1 holds 1 and 2, column 2 holds 3 and 4, listed crosswise: 1 → 4, 2 → 3.
        let edges = [(0, 1), (0, 2), (2, 3), (1, 4)];
        let layers = layers(5, &edges);
        assert_eq!(crossings(&layers, &edges, 1), 0);
    }
}
