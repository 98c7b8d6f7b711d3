puts 'ok'
