//! The learning budget's flags, shared by every command that grades through the
//! decoder's learned machine (`check`, `run`, `exhaustive`), so that each says the same.

use clap::Args;

use super::check::seconds_arg;
use super::CliError;
use crate::diagnosis::learn::ModelBudget;

/// `--model-queries` and `--model-time`.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// Most inputs decoded while learning the decoder's machine (docs/MODEL.md); past
    /// it, the machine is reported incomplete and the findings are the rule-based ones.
    #[arg(long, value_name = "N", default_value_t = ModelBudget::default().max_decodes)]
    pub model_queries: u64,
    /// Most seconds spent learning the decoder's machine; 0 skips the model.
    #[arg(long, value_name = "SECONDS", default_value_t = ModelBudget::default().max_time.as_secs_f64())]
    pub model_time: f64,
}

impl ModelArgs {
    /// The budget the flags give; `None` for `--model-time 0` (no model).
    pub fn budget(&self) -> Result<Option<ModelBudget>, CliError> {
        if self.model_time == 0.0 {
            return Ok(None);
        }
        Ok(Some(ModelBudget {
            max_decodes: self.model_queries,
            max_time: seconds_arg("--model-time", self.model_time)?,
        }))
    }
}
