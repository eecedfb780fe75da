-- The hosted capture's built-in automation and form definition go.
DELETE FROM automation_revisions WHERE automation_id = 'capture-identity';
DELETE FROM automations WHERE id = 'capture-identity';
DELETE FROM form_definition_revisions WHERE definition_id = 'identity-capture';
DELETE FROM form_definitions WHERE id = 'identity-capture';
