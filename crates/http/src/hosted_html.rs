//! The HTML of the hosted form's pages, written by hand: every text that comes from a
//! definition, a response or a link is escaped (`html-escape`) where it is placed.
//! Pages carry no inline script or style: the look is `hosted.css` and the little
//! enhancement `hosted.js`, both served as files (see [`crate::routes::hosted`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rics_domain::document::DocumentType;
use rics_domain::form_definition::model::{FieldType, FormField, FormStep};
use serde_json::{Map, Value};

/// The path the page's style sheet and script are served under.
pub const ASSETS: &str = "/hosted/assets";

/// Escapes `text` for an element's content or a double-quoted attribute.
pub fn escape(text: &str) -> String {
    html_escape::encode_double_quoted_attribute(text).into_owned()
}

/// A whole page titled `title` around `content`.
pub fn page(title: &str, content: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><link rel=\"stylesheet\" href=\"{ASSETS}/hosted.css\">\
         <script src=\"{ASSETS}/hosted.js\" defer></script></head>\
         <body><main>{content}</main></body></html>",
        title = escape(title)
    )
}

/// A page saying only `message`, under the heading `title`: what an unknown, expired
/// or used link shows, naming nothing of any form.
pub fn notice(title: &str, message: &str) -> String {
    page(
        title,
        &format!("<h1>{}</h1><p>{}</p>", escape(title), escape(message)),
    )
}

/// The end page: the form is submitted; `redirect_uri`, when there is one, is where the
/// person goes on.
pub fn end_page(form_title: &str, redirect_uri: Option<&str>) -> String {
    let next = redirect_uri
        .map(|uri| {
            format!(
                "<p><a class=\"button\" href=\"{}\">Continue</a></p>",
                escape(uri)
            )
        })
        .unwrap_or_else(|| "<p>You can close this page.</p>".to_owned());
    page(
        "Thank you",
        &format!(
            "<h1>Thank you</h1><p role=\"status\">Your answers to {} have been submitted.</p>{next}",
            escape(form_title)
        ),
    )
}

/// What one step's page shows.
pub struct StepPage<'a> {
    /// The form's title.
    pub form_title: &'a str,
    /// The link's token, for the URLs of the steps.
    pub token: &'a str,
    /// Every step, for the progress and the next and previous step.
    pub steps: &'a [FormStep],
    /// The index of the step shown.
    pub index: usize,
    /// The answers so far.
    pub response: &'a Map<String, Value>,
    /// The texts as the person typed them, by input name, shown again on an error.
    pub typed: &'a BTreeMap<String, String>,
    /// What is wrong, by field key.
    pub errors: &'a BTreeMap<String, String>,
    /// The CSRF token the form carries.
    pub csrf: &'a str,
}

/// The path of the step `key` of the link `token`.
pub fn step_path(token: &str, key: &str) -> String {
    format!("/hosted/{token}/steps/{key}")
}

impl StepPage<'_> {
    /// The page's HTML.
    pub fn render(&self) -> String {
        let Some(step) = self.steps.get(self.index) else {
            return notice("Not found", "This page does not exist.");
        };
        let last = self.index + 1 == self.steps.len();
        let mut html = format!(
            "<p class=\"progress\">Step {} of {}</p><h1>{}</h1><h2>{}</h2>",
            self.index + 1,
            self.steps.len(),
            escape(self.form_title),
            escape(&step.label),
        );
        if !self.errors.is_empty() {
            html.push_str(
                "<div class=\"error-summary\" role=\"alert\" tabindex=\"-1\" id=\"errors\">\
                 <h3>Please check your answers</h3><ul>",
            );
            for field in &step.fields {
                if let Some(message) = self.errors.get(&field.key) {
                    let _ = write!(
                        html,
                        "<li><a href=\"#f-{key}\">{label}: {message}</a></li>",
                        key = escape(&field.key),
                        label = escape(&field.label),
                        message = escape(message),
                    );
                }
            }
            for (key, message) in self
                .errors
                .iter()
                .filter(|(key, _)| !step.fields.iter().any(|field| &field.key == *key))
            {
                let _ = write!(
                    html,
                    "<li>{}: {}</li>",
                    escape(&self.label_of(key)),
                    escape(message)
                );
            }
            html.push_str("</ul></div>");
        }
        let _ = write!(
            html,
            "<form method=\"post\" action=\"{action}\" enctype=\"multipart/form-data\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">",
            action = escape(&step_path(self.token, &step.key)),
            csrf = escape(self.csrf),
        );
        for field in &step.fields {
            html.push_str(&self.field(field));
        }
        html.push_str("<div class=\"actions\">");
        if let Some(previous) = self.index.checked_sub(1).and_then(|i| self.steps.get(i)) {
            let _ = write!(
                html,
                "<a class=\"back\" href=\"{}\">Back</a>",
                escape(&step_path(self.token, &previous.key))
            );
        }
        let (value, text) = if last {
            ("submit", "Submit")
        } else {
            ("next", "Save and continue")
        };
        let _ = write!(
            html,
            "<button type=\"submit\" name=\"action\" value=\"{value}\">{text}</button></div></form>"
        );
        page(&format!("{} – {}", step.label, self.form_title), &html)
    }

    /// The label of the field `key` of any step, or the key.
    fn label_of(&self, key: &str) -> String {
        self.steps
            .iter()
            .flat_map(|step| step.fields.iter())
            .find(|field| field.key == key)
            .map_or_else(|| key.to_owned(), |field| field.label.clone())
    }

    /// The typed text of the input `name`, or `saved` when nothing was typed.
    fn text(&self, name: &str, saved: Option<&Value>) -> String {
        if let Some(typed) = self.typed.get(name) {
            return typed.clone();
        }
        match saved {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Number(number)) => number.to_string(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// One field: its label, its input, and its error next to it.
    fn field(&self, field: &FormField) -> String {
        let key = escape(&field.key);
        let saved = self.response.get(&field.key);
        let error = self.errors.get(&field.key);
        let described = error
            .map(|_| format!(" aria-invalid=\"true\" aria-describedby=\"e-{key}\""))
            .unwrap_or_default();
        let error_html = error
            .map(|message| {
                format!(
                    "<p class=\"field-error\" id=\"e-{key}\">{}</p>",
                    escape(message)
                )
            })
            .unwrap_or_default();
        let required = if field.required { " required" } else { "" };
        let mark = if field.required {
            ""
        } else {
            " <span class=\"optional\">(optional)</span>"
        };
        let label = escape(&field.label);
        let class = if error.is_some() {
            "field has-error"
        } else {
            "field"
        };
        match field.field_type {
            FieldType::Multiselect => {
                let chosen: Vec<&str> = saved
                    .and_then(Value::as_array)
                    .map(|items| items.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut options = String::new();
                for (i, option) in field.options.iter().enumerate() {
                    let checked = if chosen.contains(&option.as_str()) {
                        " checked"
                    } else {
                        ""
                    };
                    let id = if i == 0 {
                        format!("f-{key}")
                    } else {
                        format!("f-{key}-{i}")
                    };
                    let _ = write!(
                        options,
                        "<label class=\"choice\"><input type=\"checkbox\" id=\"{id}\" name=\"{key}\" value=\"{value}\"{checked}{described}> {value}</label>",
                        value = escape(option),
                    );
                }
                format!(
                    "<fieldset class=\"{class}\"><legend>{label}{mark}</legend>{error_html}{options}</fieldset>"
                )
            }
            FieldType::Checkbox => {
                let checked = if saved == Some(&Value::Bool(true)) {
                    " checked"
                } else {
                    ""
                };
                format!(
                    "<div class=\"{class}\">{error_html}<label class=\"choice\"><input type=\"checkbox\" id=\"f-{key}\" name=\"{key}\" value=\"true\"{checked}{required}{described}> {label}</label></div>"
                )
            }
            FieldType::Select => {
                let current = self.text(&field.key, saved);
                let mut options = String::from("<option value=\"\">Choose…</option>");
                for option in &field.options {
                    let selected = if *option == current { " selected" } else { "" };
                    let _ = write!(options, "<option{selected}>{}</option>", escape(option));
                }
                format!(
                    "<div class=\"{class}\"><label for=\"f-{key}\">{label}{mark}</label>{error_html}<select id=\"f-{key}\" name=\"{key}\"{required}{described}>{options}</select></div>"
                )
            }
            FieldType::File => {
                let accept = if field.accept.is_empty() {
                    String::new()
                } else {
                    format!(" accept=\"{}\"", escape(&field.accept.join(",")))
                };
                let capture = if field.accept.iter().any(|a| a.starts_with("image/")) {
                    " capture=\"user\""
                } else {
                    ""
                };
                let (have, required) = match saved.and_then(Value::as_str) {
                    Some(_) => (
                        "<p class=\"have\">A file is uploaded. Choose another only to replace it.</p>"
                            .to_owned(),
                        "",
                    ),
                    None => (String::new(), required),
                };
                format!(
                    "<div class=\"{class}\"><label for=\"f-{key}\">{label}{mark}</label>{error_html}{have}<input type=\"file\" id=\"f-{key}\" name=\"{key}\"{accept}{capture}{required}{described}><img class=\"preview\" alt=\"\" hidden></div>"
                )
            }
            FieldType::Address => self.address(field, &label, mark, class, &error_html, &described),
            FieldType::Document => {
                self.document(field, &label, mark, class, &error_html, &described)
            }
            other => {
                let (kind, extra) = match other {
                    FieldType::Email => ("email", " autocomplete=\"email\""),
                    FieldType::Phone => ("tel", " autocomplete=\"tel\""),
                    FieldType::Date => ("date", ""),
                    FieldType::Number => ("number", " step=\"any\" inputmode=\"decimal\""),
                    FieldType::Country => (
                        "text",
                        " autocomplete=\"country\" maxlength=\"2\" class=\"short\"",
                    ),
                    _ => ("text", ""),
                };
                let hint = if other == FieldType::Country {
                    format!("<p class=\"hint\" id=\"h-{key}\">Two letters, as GB or FR.</p>")
                } else {
                    String::new()
                };
                format!(
                    "<div class=\"{class}\"><label for=\"f-{key}\">{label}{mark}</label>{hint}{error_html}<input type=\"{kind}\" id=\"f-{key}\" name=\"{key}\" value=\"{value}\"{extra}{required}{described}></div>",
                    value = escape(&self.text(&field.key, saved)),
                )
            }
        }
    }

    /// An ADDRESS: its lines and parts, each input named `{key}.{part}`.
    fn address(
        &self,
        field: &FormField,
        label: &str,
        mark: &str,
        class: &str,
        error_html: &str,
        described: &str,
    ) -> String {
        let key = escape(&field.key);
        let saved = self.response.get(&field.key);
        let part = |name: &str| {
            self.text(
                &format!("{}.{name}", field.key),
                saved.and_then(|a| a.get(name)),
            )
        };
        format!(
            "<fieldset class=\"{class}\"><legend>{label}{mark}</legend>{error_html}\
             <label for=\"f-{key}\">Street address (one line each)</label>\
             <textarea id=\"f-{key}\" name=\"{key}.lines\" rows=\"3\" autocomplete=\"street-address\"{described}>{lines}</textarea>\
             <label for=\"f-{key}-locality\">Town or city</label>\
             <input id=\"f-{key}-locality\" name=\"{key}.locality\" value=\"{locality}\" autocomplete=\"address-level2\">\
             <label for=\"f-{key}-region\">Region <span class=\"optional\">(optional)</span></label>\
             <input id=\"f-{key}-region\" name=\"{key}.region\" value=\"{region}\" autocomplete=\"address-level1\">\
             <label for=\"f-{key}-postal\">Postal code</label>\
             <input id=\"f-{key}-postal\" name=\"{key}.postalCode\" value=\"{postal}\" autocomplete=\"postal-code\" class=\"short\">\
             <label for=\"f-{key}-country\">Country (two letters, as GB)</label>\
             <input id=\"f-{key}-country\" name=\"{key}.country\" value=\"{country}\" autocomplete=\"country\" maxlength=\"2\" class=\"short\">\
             </fieldset>",
            lines = escape(&part("lines")),
            locality = escape(&part("locality")),
            region = escape(&part("region")),
            postal = escape(&part("postalCode")),
            country = escape(&part("country")),
        )
    }

    /// A DOCUMENT: what is printed on it, the MRZ typed in, and its images taken with
    /// the camera or chosen as files, each input named `{key}.{part}`.
    fn document(
        &self,
        field: &FormField,
        label: &str,
        mark: &str,
        class: &str,
        error_html: &str,
        described: &str,
    ) -> String {
        let key = escape(&field.key);
        let saved = self.response.get(&field.key);
        let part = |name: &str| {
            self.text(
                &format!("{}.{name}", field.key),
                saved.and_then(|a| a.get(name)),
            )
        };
        let current_type = part("documentType");
        let mut types = String::from("<option value=\"\">Choose…</option>");
        for value in DocumentType::VALUES.iter().skip(1) {
            let selected = if *value == current_type {
                " selected"
            } else {
                ""
            };
            let _ = write!(
                types,
                "<option value=\"{value}\"{selected}>{}</option>",
                document_type_label(value)
            );
        }
        let files = saved
            .and_then(|answer| answer.get("files"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let have = if files > 0 {
            format!(
                "<p class=\"have\">{files} image{} uploaded. Choose another only to add it.</p>",
                if files == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        };
        format!(
            "<fieldset class=\"{class}\"><legend>{label}{mark}</legend>{error_html}\
             <label for=\"f-{key}\">Type of document</label>\
             <select id=\"f-{key}\" name=\"{key}.documentType\"{described}>{types}</select>\
             <label for=\"f-{key}-number\">Document number</label>\
             <input id=\"f-{key}-number\" name=\"{key}.documentNumber\" value=\"{number}\" autocapitalize=\"characters\" spellcheck=\"false\">\
             <label for=\"f-{key}-country\">Issuing country (two or three letters, as GB or GBR)</label>\
             <input id=\"f-{key}-country\" name=\"{key}.issuingCountry\" value=\"{country}\" maxlength=\"3\" class=\"short\" autocapitalize=\"characters\">\
             <label for=\"f-{key}-expiry\">Expiry date</label>\
             <input type=\"date\" id=\"f-{key}-expiry\" name=\"{key}.expiryDate\" value=\"{expiry}\">\
             <label for=\"f-{key}-mrz\">Machine readable zone <span class=\"optional\">(optional)</span></label>\
             <p class=\"hint\" id=\"h-{key}-mrz\">The two or three lines of letters, digits and &lt; at the foot of the photo page, one line each, as printed.</p>\
             <textarea id=\"f-{key}-mrz\" name=\"{key}.mrz\" rows=\"3\" class=\"mrz\" autocapitalize=\"characters\" spellcheck=\"false\" aria-describedby=\"h-{key}-mrz\">{mrz}</textarea>\
             <label for=\"f-{key}-files\">Photo of the document</label>{have}\
             <input type=\"file\" id=\"f-{key}-files\" name=\"{key}.files\" accept=\"image/*\" capture=\"environment\">\
             <img class=\"preview\" alt=\"\" hidden></fieldset>",
            number = escape(&part("documentNumber")),
            country = escape(&part("issuingCountry")),
            expiry = escape(&part("expiryDate")),
            mrz = escape(&part("mrz")),
        )
    }
}

/// The English name of a document type.
fn document_type_label(value: &str) -> &'static str {
    match value {
        "PASSPORT" => "Passport",
        "DRIVERS_LICENCE" => "Driver's licence",
        "NATIONAL_ID" => "National identity card",
        "BIRTH_CERTIFICATE" => "Birth certificate",
        "MEDICARE_CARD" => "Medicare card",
        "VISA" => "Visa",
        _ => "Other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(key: &str, field_type: FieldType) -> FormField {
        FormField {
            key: key.into(),
            label: format!("<b>{key}</b>"),
            field_type,
            required: true,
            options: vec!["a\"><script>".into()],
            ..FormField::default()
        }
    }

    #[test]
    fn every_text_of_a_step_is_escaped() {
        let steps = vec![FormStep {
            key: "one".into(),
            label: "<i>One</i>".into(),
            fields: [
                FieldType::Text,
                FieldType::Select,
                FieldType::Multiselect,
                FieldType::Address,
                FieldType::Document,
                FieldType::File,
            ]
            .into_iter()
            .enumerate()
            .map(|(i, t)| field(&format!("f{i}"), t))
            .collect(),
        }];
        let mut response = Map::new();
        response.insert(
            "f0".into(),
            Value::String("\"><script>alert(1)</script>".into()),
        );
        let mut errors = BTreeMap::new();
        errors.insert("f0".into(), "<em>bad</em>".into());
        let html = StepPage {
            form_title: "<title>",
            token: "tok",
            steps: &steps,
            index: 0,
            response: &response,
            typed: &BTreeMap::new(),
            errors: &errors,
            csrf: "c\"sr<f",
        }
        .render();
        for raw in [
            "<script>alert",
            "<b>",
            "<i>",
            "<em>",
            "c\"sr<f",
            "\"><script>",
        ] {
            assert!(!html.contains(raw), "{raw} in {html}");
        }
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("<script src=\"/hosted/assets/hosted.js\" defer></script>"));
        assert!(html.contains("accept=\"image/*\" capture=\"environment\""));
        assert!(html.contains("aria-describedby=\"e-f0\""));
    }

    #[test]
    fn the_end_page_links_on_only_where_told() {
        assert!(!end_page("KYC", None).contains("<a "));
        assert!(
            end_page("KYC", Some("https://example.com/done?a=1&b=2"))
                .contains("href=\"https://example.com/done?a=1&amp;b=2\"")
        );
    }
}
