//! The model's JSON shape (`schemas/model.schema.json`): classes, states, transitions on
//! byte ranges with their outputs, the differences from the reference, the findings, and
//! the queries the learning took.

use serde::{Serialize, Serializer};

use super::alphabet::format_ranges;
use super::learner::Hypothesis;
use super::output::StepOutput;
use crate::hex::format_hex;

/// Serialises bytes as hex (`E0 80`).
pub fn serialize_hex<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format_hex(bytes))
}

/// Serialises a sorted byte set as ranges (`80..9F, C0`).
pub fn serialize_ranges<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format_ranges(bytes))
}

/// One byte class.
#[derive(Debug, Clone, Serialize)]
pub struct ClassJson {
    /// Its bytes, as ranges.
    #[serde(serialize_with = "serialize_ranges")]
    pub bytes: Vec<u8>,
    /// The byte it is learned through.
    #[serde(serialize_with = "serialize_hex")]
    pub representative: Vec<u8>,
}

/// One state.
#[derive(Debug, Clone, Serialize)]
pub struct StateJson {
    /// Its number; 0 is the start.
    pub id: usize,
    /// The shortest input that reaches it (hex; empty for the start).
    #[serde(serialize_with = "serialize_hex")]
    pub access: Vec<u8>,
}

/// The transitions from one state to one state with one output.
#[derive(Debug, Clone, Serialize)]
pub struct TransitionJson {
    /// From state.
    pub from: usize,
    /// To state.
    pub to: usize,
    /// On these bytes.
    #[serde(serialize_with = "serialize_ranges")]
    pub bytes: Vec<u8>,
    /// With this output.
    pub output: StepOutput,
}

/// A learned machine.
#[derive(Debug, Clone, Serialize)]
pub struct MachineJson {
    /// The byte classes.
    pub classes: Vec<ClassJson>,
    /// The states.
    pub states: Vec<StateJson>,
    /// The transitions, grouped by source, target and output.
    pub transitions: Vec<TransitionJson>,
}

impl MachineJson {
    /// The JSON of `hypothesis`.
    pub fn of(hypothesis: &Hypothesis) -> MachineJson {
        let alphabet = &hypothesis.alphabet;
        let classes = (0..alphabet.len())
            .map(|c| ClassJson {
                bytes: alphabet.bytes(c).to_vec(),
                representative: vec![alphabet.representative(c)],
            })
            .collect();
        let states = hypothesis
            .access
            .iter()
            .enumerate()
            .map(|(id, access)| StateJson {
                id,
                access: access.clone(),
            })
            .collect();
        let mut transitions: Vec<TransitionJson> = Vec::new();
        for from in 0..hypothesis.state_count() {
            let start = transitions.len();
            for byte in 0..=255u8 {
                let (to, output) = hypothesis.step(from, byte);
                match transitions[start..]
                    .iter_mut()
                    .find(|t| t.to == to && t.output == output)
                {
                    Some(t) => t.bytes.push(byte),
                    None => transitions.push(TransitionJson {
                        from,
                        to,
                        bytes: vec![byte],
                        output,
                    }),
                }
            }
        }
        MachineJson {
            classes,
            states,
            transitions,
        }
    }
}
