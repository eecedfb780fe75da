DROP TABLE file_contents;
DROP TABLE file_content_removals;
DROP TABLE files;
